import Foundation
import UbiqChunking
import UbiqModel

/// The bytes of a change-log file (``RecordLogLayout``): `UBIQRLOG`, a format byte, the
/// message's length (8 bytes, little endian), its SHA-256, then the `RecordTransaction`
/// message. A truncated or altered file is refused before any of it is read as records, and
/// everything a device could not have saved (bad names, a version without the author, a
/// record twice, over ``RecordLimits``) is refused too.
public enum RecordLogCoding {
    static let magic = Array("UBIQRLOG".utf8)
    static let format: UInt8 = 1
    static let headerSize = 8 + 1 + 8 + 32
    /// No log file is larger: a transaction at its limit with the encoding's overhead.
    public static let maxFileBytes = RecordLimits.default.maxTransactionBytes * 2

    public static func encode(_ transaction: RecordTransaction) -> [UInt8] {
        var wire = Ubiq_Wire_RecordTransaction()
        wire.store = transaction.store.rawValue
        wire.author = transaction.author.rawValue
        wire.version = ItemMapping.counters(transaction.version)
        wire.hlcWall = transaction.clock.wall
        wire.hlcLogical = transaction.clock.logical
        wire.changes = transaction.changes.map(wireChange)
        // Serializing a message of set fields cannot fail.
        return framed(try! wire.serializedBytes())
    }

    /// A log file holding `body` as its message, with the header and checksum it needs.
    public static func framed(_ body: [UInt8]) -> [UInt8] {
        framed(body, magic: magic)
    }

    /// `magic`, the format, the length of `body`, its SHA-256, then `body`: the frame of each
    /// of a store's files.
    static func framed(_ body: [UInt8], magic: [UInt8]) -> [UInt8] {
        var bytes = magic + [format]
        withUnsafeBytes(of: UInt64(body.count).littleEndian) { bytes += $0 }
        return bytes + ChunkHasher.hash(body).bytes + body
    }

    /// The message of a file framed with `magic`, once its length and checksum hold.
    static func body(of bytes: [UInt8], magic: [UInt8], what: String) throws(RecordError) -> [UInt8] {
        guard bytes.count >= headerSize, Array(bytes.prefix(8)) == magic else { throw RecordError(.invalidLog, "not a record \(what)") }
        guard bytes[8] == format else { throw RecordError(.invalidLog, "\(what) format \(bytes[8]) is newer than this agent's (\(format)): update ubiq") }
        let length = bytes[9..<17].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard length == UInt64(bytes.count - headerSize) else {
            throw RecordError(.invalidLog, "\(what) is \(bytes.count - headerSize) bytes long, its header says \(length): truncated or damaged")
        }
        let body = Array(bytes[headerSize...])
        guard ChunkHasher.hash(body).bytes == Array(bytes[17..<headerSize]) else {
            throw RecordError(.invalidLog, "\(what) does not match its checksum: damaged")
        }
        return body
    }

    public static func decode(_ bytes: [UInt8]) throws(RecordError) -> RecordTransaction {
        let body = try body(of: bytes, magic: magic, what: "change log")
        let wire: Ubiq_Wire_RecordTransaction
        do { wire = try Ubiq_Wire_RecordTransaction(serializedBytes: body) } catch {
            throw RecordError(.invalidLog, "change log does not decode: \(error)")
        }
        let version: VersionVector
        do { version = try ItemMapping.version(wire.version) } catch { throw RecordError(.invalidLog, "change log: \(error.reason)") }
        let transaction = RecordTransaction(store: try RecordStoreName(wire.store), author: try author(wire.author), version: version,
                                            clock: HybridTimestamp(wall: wire.hlcWall, logical: wire.hlcLogical),
                                            changes: try wire.changes.map(change))
        try transaction.validate()
        return transaction
    }

    static func author(_ raw: String) throws(RecordError) -> DeviceID {
        guard DeviceID.isWellFormed(raw) else { throw RecordError(.invalidLog, "change log's author '\(raw.prefix(80))' is not a device ID") }
        return DeviceID(raw)
    }

    private static func wireChange(_ change: RecordChange) -> Ubiq_Wire_RecordChange {
        var wire = Ubiq_Wire_RecordChange()
        wire.entity = change.key.entity.rawValue
        wire.id = change.key.id.rawValue
        switch change {
        case .insert(_, let attributes):
            wire.kind = .insert
            wire.attributes = attributes.sorted { $0.key < $1.key }.map { wireAttribute($0.key, $0.value) }
        case .update(_, let attributes):
            wire.kind = .update
            wire.attributes = attributes.sorted { $0.key < $1.key }.map { wireAttribute($0.key, $0.value) }
        case .delete:
            wire.kind = .delete
        }
        return wire
    }

    static func wireAttribute(_ name: RecordName, _ value: RecordValue?) -> Ubiq_Wire_RecordAttribute {
        var wire = Ubiq_Wire_RecordAttribute()
        wire.name = name.rawValue
        switch value {
        case .value(let value): wire.propertyList = Data(PropertyListCoding.encode(value))
        case .reference(let key): wire.reference = .with { $0.entity = key.entity.rawValue; $0.id = key.id.rawValue }
        case nil: wire.removed = true
        }
        return wire
    }

    private static func change(_ wire: Ubiq_Wire_RecordChange) throws(RecordError) -> RecordChange {
        let key = RecordKey(entity: try RecordName(wire.entity), id: try RecordID(wire.id))
        var attributes: [RecordName: RecordValue?] = [:]
        for wireAttribute in wire.attributes {
            let (name, value) = try attribute(wireAttribute, of: key)
            guard attributes[name] == nil else { throw RecordError(.invalidLog, "change log sets attribute \(name) of \(key) twice") }
            attributes[name] = .some(value)
        }
        switch wire.kind {
        case .insert:
            guard attributes.values.allSatisfy({ $0 != nil }) else { throw RecordError(.invalidLog, "an insert of \(key) removes an attribute") }
            return .insert(key, attributes: attributes.compactMapValues { $0 })
        case .update:
            return .update(key, attributes: attributes)
        case .delete:
            guard attributes.isEmpty else { throw RecordError(.invalidLog, "a delete of \(key) sets attributes") }
            return .delete(key)
        case .UNRECOGNIZED(let kind):
            throw RecordError(.invalidLog, "change of \(key) is of unknown kind \(kind): update ubiq")
        }
    }

    /// One attribute's name and value (nil: removed) as the wire has it.
    static func attribute(_ wire: Ubiq_Wire_RecordAttribute, of key: RecordKey) throws(RecordError) -> (RecordName, RecordValue?) {
        let name = try RecordName(wire.name)
        switch wire.value {
        case .propertyList(let bytes):
            do { return (name, .value(try PropertyListCoding.decode(bytes))) } catch {
                throw RecordError(.invalidLog, "attribute \(name) of \(key): \(error)")
            }
        case .reference(let reference):
            return (name, .reference(RecordKey(entity: try RecordName(reference.entity), id: try RecordID(reference.id))))
        case .removed(true):
            return (name, nil)
        case .removed(false), nil:
            throw RecordError(.invalidLog, "attribute \(name) of \(key) has no value")
        }
    }
}
