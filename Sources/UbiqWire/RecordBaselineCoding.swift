import Foundation
import UbiqModel

/// The bytes of a record store's baseline (``RecordBaseline``) and of a device's
/// acknowledgement of what it imported, framed as change logs are (``RecordLogCoding``):
/// `UBIQRBAS` or `UBIQRACK`, the format, the length, the SHA-256, the protobuf message. Both
/// come from other devices, so anything truncated, altered or impossible is refused.
public enum RecordBaselineCoding {
    static let baselineMagic = Array("UBIQRBAS".utf8)
    static let acknowledgementMagic = Array("UBIQRACK".utf8)
    /// No baseline file is larger.
    public static let maxBaselineBytes = 512 << 20
    public static let maxAcknowledgementBytes = 1 << 20

    /// A baseline file holding `body` as its message (for fuzzing behind the checksum).
    public static func framedBaseline(_ body: [UInt8]) -> [UInt8] { RecordLogCoding.framed(body, magic: baselineMagic) }
    public static func framedAcknowledgement(_ body: [UInt8]) -> [UInt8] { RecordLogCoding.framed(body, magic: acknowledgementMagic) }

    public static func encode(_ baseline: RecordBaseline) -> [UInt8] {
        var wire = Ubiq_Wire_RecordBaseline()
        wire.store = baseline.store.rawValue
        wire.author = baseline.author.rawValue
        wire.point = ItemMapping.counters(baseline.point)
        wire.clocks = baseline.clocks.sorted { $0.key < $1.key }.map { write(RecordDot(device: $0.key, counter: baseline.point[$0.key]), $0.value) }
        wire.records = baseline.records.sorted { $0.key < $1.key }.map { key, state in
            var record = Ubiq_Wire_RecordSnapshot()
            record.entity = key.entity.rawValue
            record.id = key.id.rawValue
            if let inserted = state.inserted { record.inserted = write(inserted.dot, inserted.clock) }
            record.deletes = state.deletes.map { write($0, HybridTimestamp(wall: 0, logical: 0)) }
            record.attributes = state.attributes.sorted { $0.key < $1.key }.map { name, register in
                var attribute = Ubiq_Wire_RecordSnapshotAttribute()
                attribute.value = RecordLogCoding.wireAttribute(name, register.value)
                attribute.write = write(register.dot, register.clock)
                return attribute
            }
            return record
        }
        // Serializing a message of set fields cannot fail.
        return RecordLogCoding.framed(try! wire.serializedBytes(), magic: baselineMagic)
    }

    public static func decode(_ bytes: [UInt8]) throws(RecordError) -> RecordBaseline {
        let body = try RecordLogCoding.body(of: bytes, magic: baselineMagic, what: "baseline")
        let wire: Ubiq_Wire_RecordBaseline
        do { wire = try Ubiq_Wire_RecordBaseline(serializedBytes: body) } catch {
            throw RecordError(.invalidLog, "baseline does not decode: \(error)")
        }
        let point: VersionVector
        do { point = try ItemMapping.version(wire.point) } catch { throw RecordError(.invalidLog, "baseline: \(error.reason)") }
        var clocks: [DeviceID: HybridTimestamp] = [:]
        for clock in wire.clocks {
            let (dot, timestamp) = try self.dot(clock)
            guard clocks[dot.device] == nil, dot.counter == point[dot.device] else {
                throw RecordError(.invalidLog, "baseline's clock for \(dot) is repeated or not its point's")
            }
            clocks[dot.device] = timestamp
        }
        var records: [RecordKey: RecordState] = [:]
        for record in wire.records {
            let key = RecordKey(entity: try RecordName(record.entity), id: try RecordID(record.id))
            var state = RecordState()
            if record.hasInserted {
                let (dot, clock) = try self.dot(record.inserted)
                state.inserted = RecordRegister(value: nil, clock: clock, dot: dot)
            }
            state.deletes = try record.deletes.map { wire throws(RecordError) in try self.dot(wire).dot }
            for attribute in record.attributes {
                let (name, value) = try RecordLogCoding.attribute(attribute.value, of: key)
                let (dot, clock) = try self.dot(attribute.write)
                guard state.attributes[name] == nil else { throw RecordError(.invalidLog, "baseline holds attribute \(name) of \(key) twice") }
                state.attributes[name] = RecordRegister(value: value, clock: clock, dot: dot)
            }
            guard records[key] == nil else { throw RecordError(.invalidLog, "baseline holds record \(key) twice") }
            records[key] = state
        }
        let baseline = RecordBaseline(store: try RecordStoreName(wire.store), author: try RecordLogCoding.author(wire.author),
                                      point: point, clocks: clocks, records: records)
        try baseline.validate()
        return baseline
    }

    public static func encodeAcknowledgement(store: RecordStoreName, device: DeviceID, imported: VersionVector) -> [UInt8] {
        var wire = Ubiq_Wire_RecordAcknowledgement()
        wire.store = store.rawValue
        wire.device = device.rawValue
        wire.imported = ItemMapping.counters(imported)
        return RecordLogCoding.framed(try! wire.serializedBytes(), magic: acknowledgementMagic)
    }

    public static func decodeAcknowledgement(_ bytes: [UInt8]) throws(RecordError) -> (store: RecordStoreName, device: DeviceID, imported: VersionVector) {
        let body = try RecordLogCoding.body(of: bytes, magic: acknowledgementMagic, what: "acknowledgement")
        let wire: Ubiq_Wire_RecordAcknowledgement
        do { wire = try Ubiq_Wire_RecordAcknowledgement(serializedBytes: body) } catch {
            throw RecordError(.invalidLog, "acknowledgement does not decode: \(error)")
        }
        let imported: VersionVector
        do { imported = try ItemMapping.version(wire.imported) } catch { throw RecordError(.invalidLog, "acknowledgement: \(error.reason)") }
        return (try RecordStoreName(wire.store), try RecordLogCoding.author(wire.device), imported)
    }

    private static func write(_ dot: RecordDot, _ clock: HybridTimestamp) -> Ubiq_Wire_RecordWrite {
        var wire = Ubiq_Wire_RecordWrite()
        wire.device = dot.device.rawValue
        wire.counter = dot.counter
        wire.hlcWall = clock.wall
        wire.hlcLogical = clock.logical
        return wire
    }

    private static func dot(_ wire: Ubiq_Wire_RecordWrite) throws(RecordError) -> (dot: RecordDot, clock: HybridTimestamp) {
        guard wire.counter > 0 else { throw RecordError(.invalidLog, "baseline holds a write of counter 0") }
        return (RecordDot(device: try RecordLogCoding.author(wire.device), counter: wire.counter),
                HybridTimestamp(wall: wire.hlcWall, logical: wire.hlcLogical))
    }
}
