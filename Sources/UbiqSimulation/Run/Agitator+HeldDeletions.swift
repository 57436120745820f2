import Synchronization
import UbiqModel
import UbiqSync

/// Mass deletions and a person's decision on them (issue 40): a client empties a device's
/// `Documents/` at once, its engine holds the deletions, and now and then a person confirms
/// them or restores the files, as `ubiq deletions confirm|restore` would.
extension Agitator {
    /// The threshold the simulated devices hold deletions over: their trees are small.
    static let holdDeletionsOver = 4
    /// `rm -r Documents/*`.
    mutating func massDelete(on device: SimDevice, _ label: String) {
        let top = device.disk.snapshot().keys.filter { $0.parent?.rawValue == "Documents" }.sorted()
        let before = documents(of: device)
        let removed = top.filter { (try? device.disk.clientRemove($0)) != nil }
        guard !removed.isEmpty else { return }
        log.changed(from: before, to: documents(of: device), device: device.number, step: counter, label: label)
        steps.append("\(label) rm -r Documents/* (\(before.count) documents)")
        changed(device, Set(removed.map { Optional($0) }))
    }

    /// Each device that holds deletions gets a person's decision with a chance of one in
    /// eight (`everyone`: for sure): confirmed, or the files restored.
    mutating func decideHeldDeletions(everyone: Bool = false) {
        for device in world.devices {
            guard let life = device.life, let held = life.sync.heldDeletions, device.disk.absence == nil,
                  everyone || draw(8) == 0 else { continue }
            let restore = draw(2) == 0
            let label = "#\(counter) d\(device.number) deletions \(restore ? "restore" : "confirm")"
            steps.append("\(label) (\(held.count) held)")
            let decisions = self.decisions
            Task(executorPreference: life.executor) {
                do {
                    if restore {
                        let restored = try await life.sync.restoreDeletions()
                        decisions.restored(restored.restoring, on: device.number, label)
                    } else {
                        _ = try await life.sync.confirmDeletions()
                    }
                } catch is ScanBusy {
                    // A client's write lease: the agent answers "busy", the person asks again.
                } catch is FolderUnavailableError {
                    // The disk went away since: the agent says so, the deletions stay held.
                } catch {
                    decisions.failed("\(label): \(error)")
                }
            }
        }
    }

    /// Restores made inside tasks, moved into the log between steps: a restored file's
    /// deletion is undone by a person, not by the engine.
    mutating func collectDecisions() {
        for restore in decisions.drain() {
            log.restored(restore.paths, on: restore.device)
            steps.append("\(restore.label): \(restore.paths.count) restoring")
        }
    }
}

/// A person's decisions on held deletions, made inside simulated tasks.
final class DeletionDecisions: Sendable {
    struct Restore: Sendable {
        var device: Int
        var paths: [RelativePath]
        var label: String
    }

    private let restores = Mutex<[Restore]>([])
    private let failures = Mutex<[String]>([])

    func restored(_ paths: [RelativePath], on device: Int, _ label: String) {
        restores.withLock { $0.append(Restore(device: device, paths: paths, label: label)) }
    }

    func failed(_ line: String) { failures.withLock { $0.append(line) } }

    func drain() -> [Restore] {
        restores.withLock { restores in
            defer { restores = [] }
            return restores
        }
    }

    /// Decisions the engine refused, one line each: a held deletion can always be decided.
    var all: [String] { failures.withLock { $0.map { "a decision on held deletions failed: \($0)" } } }
}
