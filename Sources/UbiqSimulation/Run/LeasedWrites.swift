import Synchronization
import UbiqModel

/// Writes that clients made inside simulated tasks (while holding a lease), kept until the
/// agitator moves them into its write log.
final class LeasedWrites: Sendable {
    struct Write: Sendable {
        var path: RelativePath
        var bytes: [UInt8]
        var saw: [UInt8]?
        var label: String
    }

    private let writes = Mutex<[Write]>([])

    func add(_ path: RelativePath, _ bytes: [UInt8], saw: [UInt8]?, _ label: String) {
        writes.withLock { $0.append(Write(path: path, bytes: bytes, saw: saw, label: label)) }
    }

    func drain() -> [Write] {
        writes.withLock { writes in
            defer { writes = [] }
            return writes
        }
    }
}
