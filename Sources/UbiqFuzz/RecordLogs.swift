import UbiqModel
import UbiqWire

extension FuzzTarget {
    /// A record store's change-log, baseline and acknowledgement files as another device of
    /// the account wrote them: the file as it is, and the input as the message of a file
    /// whose checksum is right, so the fuzzer reaches the parser behind the checksum.
    public static let recordLogs = FuzzTarget(
        name: "record-logs",
        summary: "record stores' change-log files from other devices",
        testOneInput: { data, size in
            RecordLogs.run(Array(UnsafeRawBufferPointer(fuzzInput: data, size)))
            return 0
        },
        seeds: { try RecordLogs.seeds() })
}

enum RecordLogs {
    static func run(_ input: [UInt8]) {
        for file in [input, RecordLogCoding.framed(input)] {
            guard let transaction = try? RecordLogCoding.decode(file) else { continue }
            guard (try? RecordLogCoding.decode(RecordLogCoding.encode(transaction))) == transaction else {
                fatalError("an accepted change log reads differently once written again")
            }
        }
        for file in [input, RecordBaselineCoding.framedBaseline(input)] {
            guard let baseline = try? RecordBaselineCoding.decode(file) else { continue }
            guard (try? RecordBaselineCoding.decode(RecordBaselineCoding.encode(baseline))) == baseline else {
                fatalError("an accepted baseline reads differently once written again")
            }
        }
        for file in [input, RecordBaselineCoding.framedAcknowledgement(input)] {
            guard let read = try? RecordBaselineCoding.decodeAcknowledgement(file) else { continue }
            let again = try? RecordBaselineCoding.decodeAcknowledgement(
                RecordBaselineCoding.encodeAcknowledgement(store: read.store, device: read.device, imported: read.imported))
            guard again?.store == read.store, again?.device == read.device, again?.imported == read.imported else {
                fatalError("an accepted acknowledgement reads differently once written again")
            }
        }
    }

    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        let author = DeviceID("MFRGG2LT-MFRGG2LT")
        let task = RecordKey(entity: try RecordName("Task"), id: try RecordID("t-1"))
        let list = RecordKey(entity: try RecordName("List"), id: try RecordID("l-1"))
        let transaction = RecordTransaction(
            store: try RecordStoreName("todos"), author: author, version: VersionVector([author: 2, DeviceID("NBSWY3DP"): 5]),
            clock: HybridTimestamp(wall: 1_790_000_000_000, logical: 1),
            changes: [.insert(task, attributes: [try RecordName("title"): .value(.string("milk")), try RecordName("list"): .reference(list)]),
                      .update(list, attributes: [try RecordName("count"): .value(.integer(3)), try RecordName("note"): nil]),
                      .delete(RecordKey(entity: try RecordName("Task"), id: try RecordID("t-0")))])
        let file = RecordLogCoding.encode(transaction)
        var state = RecordState()
        state.inserted = RecordRegister(value: nil, clock: transaction.clock, dot: RecordDot(device: author, counter: 2))
        state.attributes[try RecordName("title")] = RecordRegister(value: .value(.string("milk")), clock: transaction.clock,
                                                                   dot: RecordDot(device: author, counter: 2))
        state.deletes = [RecordDot(device: DeviceID("NBSWY3DP"), counter: 5)]
        let baseline = RecordBaselineCoding.encode(RecordBaseline(
            store: transaction.store, author: author, point: transaction.version,
            clocks: [author: transaction.clock, DeviceID("NBSWY3DP"): HybridTimestamp(wall: 1_789_000_000_000, logical: 0)],
            records: [task: state]))
        let acknowledgement = RecordBaselineCoding.encodeAcknowledgement(store: transaction.store, device: author, imported: transaction.version)
        return [("transaction", file), ("message", Array(file.dropFirst(49))), ("baseline", baseline),
                ("baseline-message", Array(baseline.dropFirst(49))), ("acknowledgement", acknowledgement)]
    }
}
