/// A path compared and hashed by its UTF-8 bytes: `café` in NFC and in NFD are two files on
/// Linux, which Swift's `String ==` takes for one, so query results keep them apart.
public struct PathBytes: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let path: String

    public init(_ path: String) { self.path = path }
    public init(stringLiteral path: String) { self.path = path }

    public static func == (a: PathBytes, b: PathBytes) -> Bool { a.path.utf8.elementsEqual(b.path.utf8) }

    public func hash(into hasher: inout Hasher) {
        for byte in path.utf8 { hasher.combine(byte) }
    }

    public var description: String { path }
}
