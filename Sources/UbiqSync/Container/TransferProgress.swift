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

    /// Each transfer, with when its last bytes came (or when it began).
    private let table = Mutex<[RelativePath: (transfer: Transfer, moved: ContinuousClock.Instant)]>([:])

    private let clock: any EngineClock

    public init(clock: any EngineClock = SystemClock()) { self.clock = clock }

    func begin(_ path: RelativePath, total: UInt64) {
        table.withLock { $0[path] = (Transfer(path: path, done: 0, total: total), clock.now) }
    }

    func add(_ bytes: UInt64, to path: RelativePath) {
        table.withLock { table in
            guard var entry = table[path] else { return }
            entry.transfer.done += bytes
            entry.moved = clock.now
            table[path] = entry
        }
    }

    func end(_ path: RelativePath) {
        _ = table.withLock { $0.removeValue(forKey: path) }
    }

    public func transfer(_ path: RelativePath) -> Transfer? { table.withLock { $0[path]?.transfer } }

    public var all: [Transfer] { table.withLock { $0.values.map(\.transfer).sorted { $0.path < $1.path } } }

    /// Since when the transfer that has waited longest for its next bytes, among those of
    /// `paths`, has waited; nil when none of them is being assembled.
    func longestWaitBegan(among paths: (RelativePath) -> Bool) -> ContinuousClock.Instant? {
        table.withLock { $0.values.filter { paths($0.transfer.path) }.map(\.moved).min() }
    }
}
