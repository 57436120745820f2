import Foundation
import UbiqModel

/// Converts key-value entries to wire messages and back, checking a peer's claims on the
/// way in: a key that is empty, overlong or not text, a value that does not decode, a
/// version without counters or author are refused before the store sees them.
///
/// The store's own limits (key length, sizes) are not checked here: another device may run
/// with larger ones, and every device must take the same entries to converge. A store over
/// its quota after a merge says so to its subscribers instead.
public enum KeyValueMapping {
    /// No key on the wire may be longer, whatever a store's limits.
    public static let maxKeyBytes = KeyValueLimits.ceiling.maxKeyBytes

    public static func wireEntry(_ entry: KeyValueEntry) -> Ubiq_Wire_KeyValueEntry {
        var wire = Ubiq_Wire_KeyValueEntry()
        wire.key = entry.key
        if let value = entry.value {
            wire.value = Data(PropertyListCoding.encode(value))
        } else {
            wire.removed = true
        }
        wire.version = ItemMapping.counters(entry.version)
        if entry.valueVersion != entry.version { wire.valueVersion = ItemMapping.counters(entry.valueVersion) }
        wire.hlcWall = entry.timestamp.wall
        wire.hlcLogical = entry.timestamp.logical
        wire.modifiedBy = entry.modifiedBy.rawValue
        return wire
    }

    public static func entry(_ wire: Ubiq_Wire_KeyValueEntry) throws(WireError) -> KeyValueEntry {
        guard !wire.key.isEmpty, wire.key.utf8.count <= maxKeyBytes, !wire.key.utf8.contains(0) else {
            throw WireError(.malformed, "refused key '\(wire.key.prefix(80))': empty, over \(maxKeyBytes) bytes or with NUL")
        }
        var value: PropertyListValue?
        if wire.removed {
            guard wire.value.isEmpty else { throw WireError(.malformed, "removed key '\(wire.key.prefix(80))' carries a value") }
        } else {
            do { value = try PropertyListCoding.decode(wire.value) } catch {
                throw WireError(.malformed, "key '\(wire.key.prefix(80))': \(error)")
            }
        }
        let version = try ItemMapping.version(wire.version)
        let valueVersion = wire.valueVersion.isEmpty ? version : try ItemMapping.version(wire.valueVersion)
        guard version.compare(to: valueVersion) != .dominated && version.compare(to: valueVersion) != .concurrent else {
            throw WireError(.invalidVersion, "key '\(wire.key.prefix(80))': the value's version is newer than the entry's")
        }
        return KeyValueEntry(key: wire.key, value: value, version: version, valueVersion: valueVersion,
                             timestamp: HybridTimestamp(wall: wire.hlcWall, logical: wire.hlcLogical),
                             modifiedBy: try ItemMapping.device(wire.modifiedBy))
    }
}
