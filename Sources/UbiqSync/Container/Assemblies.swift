import Foundation
import Synchronization
import UbiqChunking
import UbiqModel

/// The versions this device is assembling now, with the bytes of each it holds, verified:
/// what it tells its peers, and serves them from the staged file before the version is in
/// place (protocol 6).
///
/// A version assembled whole stays listed a little longer, among the last ``keptFinished``,
/// so that pieces announced stay served until the file takes its place, and from then on
/// from the file itself.
final class Assemblies: Sendable {
    private struct Entry {
        var staged: any StagedFile
        var held: RangeSet<UInt64>
        var finished: Bool
    }

    private struct State {
        var entries: [SwarmVersion: Entry] = [:]
        var finished: [SwarmVersion] = []
    }

    private let state = Mutex(State())
    static let keptFinished = 16

    func begin(_ version: SwarmVersion, staged: any StagedFile) {
        state.withLock { state in
            state.finished.removeAll { $0 == version }
            state.entries[version] = Entry(staged: staged, held: RangeSet(), finished: false)
        }
    }

    /// Records verified bytes written to the staged file of `version`.
    func hold(_ ranges: RangeSet<UInt64>, of version: SwarmVersion) {
        state.withLock { state in state.entries[version]?.held.formUnion(ranges) }
    }

    /// The version is assembled (`whole`), or given up: then it is dropped at once.
    func end(_ version: SwarmVersion, whole: Bool) {
        state.withLock { state in
            guard whole else {
                state.entries[version] = nil
                return
            }
            state.entries[version]?.finished = true
            state.finished.append(version)
            if state.finished.count > Self.keptFinished { state.entries[state.finished.removeFirst()] = nil }
        }
    }

    /// What this device holds of each version still being assembled.
    func inProgress() -> [SwarmProgress] {
        state.withLock { state in
            state.entries.filter { !$0.value.finished && !$0.value.held.isEmpty }
                .map { SwarmProgress(version: $0.key, held: $0.value.held) }
                .sorted { $0.version.contentKey < $1.version.contentKey }
        }
    }

    /// The run's bytes from the staged file of a version of `path` that holds them all,
    /// checked against their hashes; nil when none does.
    func read(path: RelativePath, run: [ChunkRef]) -> Data? {
        guard let first = run.first, let wanted = run.span else { return nil }
        let staged = state.withLock { state in
            state.entries.first { $0.key.path == path && $0.value.held.covers(wanted) }?.value.staged
        }
        guard let staged, let total = UInt32(exactly: wanted.count),
              let bytes = try? staged.read(total, at: first.offset), bytes.count == Int(total) else { return nil }
        var start = bytes.startIndex
        for chunk in run {
            let end = start + Int(chunk.size)
            guard ChunkHasher.hash(bytes[start..<end]) == chunk.hash else { return nil }
            start = end
        }
        return bytes
    }
}
