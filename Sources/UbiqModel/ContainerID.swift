/// A ubiquity container identifier such as `TEAMID.com.example.notes`.
///
/// The same form as iCloud's: dot-separated segments of letters, digits, `-` and `_`, at
/// least two segments, no `*` wildcards.
public struct ContainerID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(_ rawValue: String) throws(ModelError) {
        let segments = rawValue.split(separator: ".", omittingEmptySubsequences: false)
        let allowed = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_") }
        guard rawValue.utf8.count <= 255, segments.count >= 2,
              segments.allSatisfy({ !$0.isEmpty && $0.allSatisfy(allowed) })
        else {
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
