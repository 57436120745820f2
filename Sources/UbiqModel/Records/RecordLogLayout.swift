/// Where a record store's change logs live in a container's data scope (outside
/// `Documents/`): `Records/STORE/DEVICE/COUNTER.ubiqlog`, one folder per store and device, so
/// two devices never write the same file and logs never conflict; the counter is padded to
/// 20 digits, so names sort in the order they were saved. Beside its logs a device keeps
/// what it has imported (`imported.ubiqack`) and, where it compacted the store, the
/// baseline (`TOTAL.ubiqbase`, TOTAL the transactions in it, padded alike).
public enum RecordLogLayout {
    public static let folder = "Records"
    public static let suffix = ".ubiqlog"
    public static let baselineSuffix = ".ubiqbase"
    public static let acknowledgementName = "imported.ubiqack"

    /// `Records/STORE`, the folder of every device's files of the store.
    public static func folder(of store: RecordStoreName) throws -> RelativePath {
        try RelativePath("\(folder)/\(store)")
    }

    public static func baselinePath(store: RecordStoreName, device: DeviceID, total: UInt64) throws -> RelativePath {
        let digits = String(total)
        return try RelativePath("\(folder)/\(store)/\(device)/\(String(repeating: "0", count: 20 - digits.count))\(digits)\(baselineSuffix)")
    }

    public static func acknowledgementPath(store: RecordStoreName, device: DeviceID) throws -> RelativePath {
        try RelativePath("\(folder)/\(store)/\(device)/\(acknowledgementName)")
    }

    /// The store and device of a baseline's path, and the transactions it holds.
    public static func baseline(at path: RelativePath) -> (store: RecordStoreName, device: DeviceID, total: UInt64)? {
        numbered(path, suffix: baselineSuffix)
    }

    /// The store and device of an acknowledgement's path.
    public static func acknowledgement(at path: RelativePath) -> (store: RecordStoreName, device: DeviceID)? {
        let parts = path.components
        guard parts.count == 4, parts[0] == folder, parts[3] == acknowledgementName, let store = try? RecordStoreName(String(parts[1])),
              DeviceID.isWellFormed(String(parts[2])) else { return nil }
        return (store, DeviceID(String(parts[2])))
    }

    /// The store a path is in (its folder or anything under it); nil outside `Records/`.
    public static func store(containing path: RelativePath) -> RecordStoreName? {
        let parts = path.components
        guard parts.count >= 2, parts[0] == folder else { return nil }
        return try? RecordStoreName(String(parts[1]))
    }

    public static func path(store: RecordStoreName, device: DeviceID, counter: UInt64) throws -> RelativePath {
        let digits = String(counter)
        return try RelativePath("\(folder)/\(store)/\(device)/\(String(repeating: "0", count: 20 - digits.count))\(digits)\(suffix)")
    }

    /// The store, device and counter a path names; nil where it is no log's path.
    public static func log(at path: RelativePath) -> (store: RecordStoreName, device: DeviceID, counter: UInt64)? {
        numbered(path, suffix: suffix)
    }

    private static func numbered(_ path: RelativePath, suffix: String) -> (RecordStoreName, DeviceID, UInt64)? {
        let parts = path.components
        guard parts.count == 4, parts[0] == folder, let store = try? RecordStoreName(String(parts[1])),
              DeviceID.isWellFormed(String(parts[2])), parts[3].hasSuffix(suffix) else { return nil }
        let digits = parts[3].dropLast(suffix.count)
        guard digits.count == 20, digits.allSatisfy(\.isASCII), let number = UInt64(digits), number > 0 else { return nil }
        return (store, DeviceID(String(parts[2])), number)
    }
}
