import Synchronization
import UbiqModel
import UbiqTestSupport

/// Writes that clients made inside simulated tasks (while holding a lease), kept until the
/// agitator moves them into its write log.
final class LeasedWrites: Sendable {
    struct Write: Sendable {
        var version: WrittenVersion
        /// What the writer saw at the path under its lease: the version it replaces.
        var saw: WrittenVersion?
        var label: String
    }

    private let writes = Mutex<[Write]>([])

    func add(_ version: WrittenVersion, saw: WrittenVersion?, _ label: String) {
        writes.withLock { $0.append(Write(version: version, saw: saw, label: label)) }
    }

    func drain() -> [Write] {
        writes.withLock { writes in
            defer { writes = [] }
            return writes
        }
    }
}
