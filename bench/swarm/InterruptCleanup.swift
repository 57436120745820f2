import Foundation
import Synchronization

/// The write end of the pipe the signal handler writes to; set once, before the handler is.
nonisolated(unsafe) private var interruptPipe: Int32 = -1

/// Runs what a benchmark run registered (tearing down its namespaces and removing its
/// folder) when the process is interrupted by SIGINT, SIGTERM or SIGHUP, then exits with
/// 128 + the signal. The handler only writes the signal's number to a pipe (all a handler
/// may safely do); a thread of its own reads it and does the work. A handler, unlike an
/// ignored signal, is reset when a child execs, so agents still stop on SIGTERM.
final class InterruptCleanup: Sendable {
    static let shared = InterruptCleanup()

    private let actions = Mutex<[Int: @Sendable () -> Void]>([:])
    private let nextID = Atomic<Int>(0)
    private let installed = Atomic<Bool>(false)

    /// Installs the handlers; calling it again does nothing.
    func install() {
        guard !installed.exchange(true, ordering: .relaxed) else { return }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        interruptPipe = ends[1]
        let reader = ends[0]
        Thread { [self] in
            var signal: UInt8 = 0
            while read(reader, &signal, 1) != 1 {}
            FileHandle.standardError.write(Data("\ninterrupted (signal \(signal)): removing the benchmark's namespaces and folders\n".utf8))
            let pending = actions.withLock { actions in
                defer { actions.removeAll() }
                return actions.sorted { $0.key > $1.key }.map(\.value)
            }
            for action in pending { action() }
            _exit(128 + Int32(signal))
        }.start()
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(interruptPipe, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }

    /// Registers `action` until `remove(_:)`; the latest runs first.
    func add(_ action: @escaping @Sendable () -> Void) -> Int {
        let id = nextID.add(1, ordering: .relaxed).newValue
        actions.withLock { $0[id] = action }
        return id
    }

    func remove(_ id: Int) {
        _ = actions.withLock { $0.removeValue(forKey: id) }
    }
}
