/// Where a record store's change logs live in a container's data scope (outside
/// `Documents/`): `Records/STORE/DEVICE/COUNTER.ubiqlog`, one folder per store and device, so
/// two devices never write the same file and logs never conflict; the counter is padded to
/// 20 digits, so names sort in the order they were saved.
public enum RecordLogLayout {
    public static let folder = "Records"
    public static let suffix = ".ubiqlog"

    public static func path(store: RecordStoreName, device: DeviceID, counter: UInt64) throws -> RelativePath {
        let digits = String(counter)
        return try RelativePath("\(folder)/\(store)/\(device)/\(String(repeating: "0", count: 20 - digits.count))\(digits)\(suffix)")
    }

    /// The store, device and counter a path names; nil where it is no log's path.
    public static func log(at path: RelativePath) -> (store: RecordStoreName, device: DeviceID, counter: UInt64)? {
        let parts = path.components
        guard parts.count == 4, parts[0] == folder, let store = try? RecordStoreName(String(parts[1])),
              DeviceID.isWellFormed(String(parts[2])), parts[3].hasSuffix(suffix) else { return nil }
        let digits = parts[3].dropLast(suffix.count)
        guard digits.count == 20, digits.allSatisfy(\.isASCII), let counter = UInt64(digits), counter > 0 else { return nil }
        return (store, DeviceID(String(parts[2])), counter)
    }
}
