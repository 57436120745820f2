/// A record store's records at a point every device taking part in the store had imported:
/// it replaces the change logs up to that point (compaction), and a device that joins later
/// starts from it and imports only the logs after it. The merge state is kept whole
/// (registers with their writes, deletes as dots), so a transaction made concurrently with
/// the point still merges as it would have against the logs.
public struct RecordBaseline: Hashable, Sendable {
    public var store: RecordStoreName
    /// The device that made it (the one compacting the store).
    public var author: DeviceID
    /// Every transaction up to it is in the records; none after.
    public var point: VersionVector
    /// Per device of `point`, the clock of its last transaction in the records, so later
    /// transactions' clocks are still checked against it.
    public var clocks: [DeviceID: HybridTimestamp]
    public var records: [RecordKey: RecordState]

    public init(store: RecordStoreName, author: DeviceID, point: VersionVector, clocks: [DeviceID: HybridTimestamp],
                records: [RecordKey: RecordState]) {
        self.store = store
        self.author = author
        self.point = point
        self.clocks = clocks
        self.records = records
    }

    /// The transactions the baseline holds (the sum of its point's counters).
    public var total: UInt64 { point.total }

    /// Refuses what no device could have made: a point without a clock for each of its
    /// devices (or a clock for a device not in it), a write or delete beyond the point.
    public func validate() throws(RecordError) {
        guard !point.isEmpty else { throw RecordError(.invalidLog, "baseline holds no transaction") }
        guard Set(clocks.keys) == Set(point.counters.keys) else {
            throw RecordError(.invalidLog, "baseline's clocks do not name the devices of its point \(point)")
        }
        func within(_ dot: RecordDot, _ key: RecordKey) throws(RecordError) {
            guard dot.counter >= 1, dot.counter <= point[dot.device] else {
                throw RecordError(.invalidLog, "baseline's record \(key) holds \(dot), which is beyond its point \(point)")
            }
        }
        for (key, state) in records {
            if let inserted = state.inserted { try within(inserted.dot, key) }
            for dot in state.deletes { try within(dot, key) }
            for register in state.attributes.values { try within(register.dot, key) }
            guard state.inserted != nil || !state.deletes.isEmpty || !state.attributes.isEmpty else {
                throw RecordError(.invalidLog, "baseline's record \(key) holds nothing")
            }
        }
    }
}
