/// A ubiquity container identifier such as `TEAMID.com.example.notes`.
///
/// The same form as iCloud's: dot-separated segments of letters, digits, `-` and `_`, at
/// least two segments, no `*` wildcards.
public struct ContainerID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) throws(ModelError) {
        // ASCII letters, digits, '-' and '_' in two or more segments joined by single periods,
        // checked byte by byte (every message from a peer names its container).
        var segments = 1, segmentLength = 0, valid = rawValue.utf8.count <= 255
        for byte in rawValue.utf8 where valid {
            switch byte {
            case UInt8(ascii: "."):
                valid = segmentLength > 0
                (segments, segmentLength) = (segments + 1, 0)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"):
                segmentLength += 1
            default:
                valid = false
            }
        }
        guard valid, segments >= 2, segmentLength > 0 else {
            throw ModelError(.invalidContainerID, "'\(rawValue)' is not a container identifier; use the form TEAMID.com.example.app")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
    public static func < (lhs: ContainerID, rhs: ContainerID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
