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
        // One pass over the bytes: every path the index, the disk and peers hand over comes
        // through here.
        var start = 0, dots = 0, offset = 0, first = true
        for byte in rawValue.utf8 {
            switch byte {
            case 0:
                throw ModelError(.invalidPath, "path contains a NUL byte")
            case UInt8(ascii: "/"):
                try Self.checkComponent(length: offset - start, dots: dots, first: first, in: rawValue)
                (start, dots, first) = (offset + 1, 0, false)
            case UInt8(ascii: "."):
                dots += 1
            default:
                break
            }
            offset += 1
        }
        try Self.checkComponent(length: offset - start, dots: dots, first: first, in: rawValue)
        self.rawValue = rawValue
    }

    /// Refuses an empty, `.` or `..` component, and `.ubiq` as the first; `dots` counts the
    /// component's periods.
    private static func checkComponent(length: Int, dots: Int, first: Bool, in path: String) throws(ModelError) {
        if length == 0 || (length <= 2 && dots == length) {
            throw ModelError(.invalidPath, "'\(path)' has an empty, '.' or '..' component")
        }
        if first, length == agentFolder.utf8.count, path.utf8.starts(with: agentFolder.utf8) {
            throw ModelError(.invalidPath, "'\(path)' is inside the agent's private .ubiq/ folder")
        }
    }

    /// A path known to be valid: a parent of one.
    private init(valid rawValue: String) {
        self.rawValue = rawValue
    }

    public var components: [Substring] { rawValue.split(separator: "/") }

    public var name: Substring {
        guard let slash = rawValue.utf8.lastIndex(of: UInt8(ascii: "/")) else { return rawValue[...] }
        return rawValue[rawValue.index(after: slash)...]
    }

    public var parent: RelativePath? {
        guard let slash = rawValue.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        return RelativePath(valid: String(rawValue[..<slash]))
    }

    public func appending(_ name: String) throws(ModelError) -> RelativePath {
        try RelativePath(rawValue + "/" + name)
    }

    /// True where this path lies under `other` (or is it).
    public func isInside(_ other: RelativePath) -> Bool {
        let inner = rawValue.utf8, outer = other.rawValue.utf8
        return inner.starts(with: outer) && (inner.count == outer.count || inner.dropFirst(outer.count).first == UInt8(ascii: "/"))
    }

    /// True where this path lies in the subtree `root` (nil: the whole container, so always).
    public func isWithin(_ root: RelativePath?) -> Bool {
        root.map { isInside($0) } ?? true
    }

    /// False for anything inside a `<name>.nosync` folder, at any depth.
    public var isSyncable: Bool {
        var rest = rawValue[...]
        while let marker = rest.firstRange(of: ".nosync") {
            // A component ends there: a slash follows, or the path does.
            if marker.upperBound == rest.endIndex || rest[marker.upperBound] == "/" { return false }
            rest = rest[marker.upperBound...]
        }
        return true
    }

    /// Case-folded form, to find two paths that differ only in case.
    public var caseFolded: String { rawValue.lowercased() }

    public var description: String { rawValue }

    // Paths are told apart by their bytes, as Linux does: `café` in NFC and in NFD are two
    // files there, while Swift's `String ==` takes them for one (canonical equivalence).
    public static func == (lhs: RelativePath, rhs: RelativePath) -> Bool { lhs.rawValue.utf8.elementsEqual(rhs.rawValue.utf8) }
    public func hash(into hasher: inout Hasher) {
        var bytes = rawValue
        bytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
    /// In byte order, as SQLite sorts the index's paths.
    public static func < (lhs: RelativePath, rhs: RelativePath) -> Bool { lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8) }

    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
