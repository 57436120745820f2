/// A path inside a container, relative to its root, in `/`-separated form.
///
/// Construction is the single gate for paths from the network and the disk: it refuses
/// absolute paths, `.` and `..` components, empty components, NUL bytes and anything inside
/// the agent's own `.ubiq/` folder, so no later code can be tricked into writing outside
/// a container.
public struct RelativePath: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// The agent's private folder at the top of every container.
    public static let agentFolder = ".ubiq"

    public init(_ rawValue: String) throws(ModelError) {
        guard !rawValue.isEmpty, rawValue.utf8.count <= 4096 else {
            throw ModelError(.invalidPath, "path is empty or longer than 4096 bytes")
        }
        guard !rawValue.hasPrefix("/") else {
            throw ModelError(.invalidPath, "'\(rawValue)' is absolute; paths must be relative to the container")
        }
        guard !rawValue.utf8.contains(0) else { throw ModelError(.invalidPath, "path contains a NUL byte") }
        let components = rawValue.split(separator: "/", omittingEmptySubsequences: false)
        for component in components {
            if component.isEmpty || component == "." || component == ".." {
                throw ModelError(.invalidPath, "'\(rawValue)' has an empty, '.' or '..' component")
            }
        }
        if components[0] == Self.agentFolder {
            throw ModelError(.invalidPath, "'\(rawValue)' is inside the agent's private .ubiq/ folder")
        }
        self.rawValue = rawValue
    }

    public var components: [Substring] { rawValue.split(separator: "/") }
    public var name: Substring { components.last! }

    public var parent: RelativePath? {
        guard let slash = rawValue.lastIndex(of: "/") else { return nil }
        return try? RelativePath(String(rawValue[..<slash]))
    }

    public func appending(_ name: String) throws(ModelError) -> RelativePath {
        try RelativePath(rawValue + "/" + name)
    }

    /// True where this path lies under `other` (or is it).
    public func isInside(_ other: RelativePath) -> Bool {
        rawValue == other.rawValue || rawValue.hasPrefix(other.rawValue + "/")
    }

    /// False for anything inside a `<name>.nosync` folder, at any depth.
    public var isSyncable: Bool {
        !components.dropLast().contains { $0.hasSuffix(".nosync") } && !name.hasSuffix(".nosync")
    }

    /// Case-folded form, to find two paths that differ only in case.
    public var caseFolded: String { rawValue.lowercased() }

    public var description: String { rawValue }
    public static func < (lhs: RelativePath, rhs: RelativePath) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
