import Synchronization
import UbiqModel

/// Files being assembled right now and how far each has come, for status progress bars,
/// `item.status` and coordinated reads that wait for a download.
public final class TransferProgress: Sendable {
    /// One file's transfer: bytes in place (local copies and fetched chunks) of `total`.
    public struct Transfer: Sendable, Equatable {
        public var path: RelativePath
        public var done: UInt64
        public var total: UInt64

        public var fraction: Double { total == 0 ? 1 : Double(done) / Double(total) }
    }

    private let table = Mutex<[RelativePath: Transfer]>([:])

    public init() {}

    func begin(_ path: RelativePath, total: UInt64) {
        table.withLock { $0[path] = Transfer(path: path, done: 0, total: total) }
    }

    func add(_ bytes: UInt64, to path: RelativePath) {
        table.withLock { $0[path]?.done += bytes }
    }

    func end(_ path: RelativePath) {
        _ = table.withLock { $0.removeValue(forKey: path) }
    }

    public func transfer(_ path: RelativePath) -> Transfer? { table.withLock { $0[path] } }

    public var all: [Transfer] { table.withLock { $0.values.sorted { $0.path < $1.path } } }
}
