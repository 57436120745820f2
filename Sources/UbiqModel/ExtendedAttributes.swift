/// The extended attributes of the `user.` namespace that travel with a file or folder: tags,
/// origin URLs, checksums that tools keep beside the bytes. Other namespaces (`security.`,
/// `system.`, `trusted.`) belong to one machine and never travel.
///
/// Sorted by name bytes, each name once. A set is at most ``limit`` bytes of names and values
/// together; a larger one is refused (the scanner reports it, a peer's is a wire error).
public struct ExtendedAttributes: Hashable, Sendable, Codable {
    /// One attribute: its whole name (`user.xdg.origin.url`) and its value's bytes.
    public struct Attribute: Hashable, Sendable, Codable {
        public let name: String
        public let value: [UInt8]

        public init(name: String, value: [UInt8]) {
            self.name = name
            self.value = value
        }
    }

    public let attributes: [Attribute]

    /// No attributes.
    public static let empty = ExtendedAttributes(sorted: [])
    /// The most bytes of names and values one item's set may hold (64 KiB, the most one
    /// Linux attribute value may hold).
    public static let limit = 65_536
    public static let namespace = "user."
    /// Linux's `XATTR_NAME_MAX`.
    public static let maxNameBytes = 255

    private init(sorted: [Attribute]) { attributes = sorted }

    /// Checks every rule: names in the `user.` namespace, at most 255 bytes, no NUL, each once,
    /// and the whole set within ``limit``.
    public init(_ attributes: [Attribute]) throws(ModelError) {
        let sorted = attributes.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for (index, attribute) in sorted.enumerated() {
            try Self.check(name: attribute.name)
            if index > 0, sorted[index - 1].name.utf8.elementsEqual(attribute.name.utf8) {
                throw ModelError(.invalidAttributes, "the extended attribute '\(attribute.name)' is named twice")
            }
        }
        let total = Self.byteCount(of: sorted)
        guard total <= Self.limit else {
            throw ModelError(.attributesTooLarge,
                             "extended attributes of \(total) bytes pass the limit of \(Self.limit) bytes (names and values together)")
        }
        self.attributes = sorted
    }

    /// Whether `name` may travel: in the `user.` namespace, with something after it.
    public static func travels(_ name: String) -> Bool {
        name.utf8.starts(with: namespace.utf8) && name.utf8.count > namespace.utf8.count
    }

    static func check(name: String) throws(ModelError) {
        guard travels(name), name.utf8.count <= maxNameBytes, !name.utf8.contains(0) else {
            throw ModelError(.invalidAttributes,
                             "the extended attribute name '\(name.prefix(80))' is not a 'user.' name of at most \(maxNameBytes) bytes")
        }
    }

    /// Bytes of names and values together: what ``limit`` bounds.
    public var byteCount: Int { Self.byteCount(of: attributes) }

    public var isEmpty: Bool { attributes.isEmpty }

    public var names: [String] { attributes.map(\.name) }

    public subscript(name: String) -> [UInt8]? {
        attributes.first { $0.name.utf8.elementsEqual(name.utf8) }?.value
    }

    private static func byteCount(of attributes: [Attribute]) -> Int {
        attributes.reduce(0) { $0 + $1.name.utf8.count + $1.value.count }
    }

    public init(from decoder: any Decoder) throws {
        let attributes = try decoder.singleValueContainer().decode([Attribute].self)
        do { try self.init(attributes) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.reason))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(attributes)
    }
}
