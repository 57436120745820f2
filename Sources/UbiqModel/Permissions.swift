/// The permission bits that travel with an item: read, write and execute for owner, group
/// and others, plus setgid and sticky on folders. Never setuid, never ownership: a peer's
/// file must not run with another user's rights, and users differ between workstations.
public struct Permissions: Hashable, Sendable, Codable, CustomStringConvertible {
    public let bits: UInt32

    /// The bits of `mode` that travel for an item of `kind`; none for symbolic links.
    public init(mode: UInt32, kind: ItemKind) {
        bits = mode & Self.mask(for: kind)
    }

    /// What an item gets where nothing else is known (an entry from a peer or an index of
    /// before permissions travelled): the executable bit alone said anything then.
    public static func defaults(for kind: ItemKind, executable: Bool = false) -> Permissions {
        switch kind {
        case .file: Permissions(mode: executable ? 0o755 : 0o644, kind: .file)
        case .directory, .package: Permissions(mode: 0o755, kind: kind)
        case .symlink: Permissions(mode: 0, kind: .symlink)
        }
    }

    static func mask(for kind: ItemKind) -> UInt32 {
        switch kind {
        case .file: 0o777
        case .directory, .package: 0o3777
        case .symlink: 0
        }
    }

    /// The owner may execute it (what protocol 1 peers hear of).
    public var executable: Bool { bits & 0o100 != 0 }

    /// Four octal digits, as `chmod` takes them: `0644`.
    public var description: String {
        let octal = String(bits, radix: 8)
        return String(repeating: "0", count: max(0, 4 - octal.count)) + octal
    }

    /// Reads ``description``'s form back; nil for anything else.
    public init?(octal: String, kind: ItemKind) {
        guard !octal.isEmpty, octal.count <= 4, let value = UInt32(octal, radix: 8) else { return nil }
        self.init(mode: value, kind: kind)
    }
}
