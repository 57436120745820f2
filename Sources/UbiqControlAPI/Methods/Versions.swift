import Foundation
import UbiqModel

/// The params of `versions.list`.
public struct VersionsListParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String

    public init(container: ContainerID, path: String) {
        self.container = container
        self.path = path
    }
}

/// The result of `versions.list`: a document's current version and its unresolved conflict
/// versions (`NSFileVersion` in iCloud terms).
public struct VersionsList: Hashable, Sendable, Codable {
    public var current: VersionEntry
    public var conflicts: [VersionEntry]

    public init(current: VersionEntry, conflicts: [VersionEntry]) {
        self.current = current
        self.conflicts = conflicts
    }
}

/// One version of a document.
public struct VersionEntry: Hashable, Sendable, Codable {
    /// The id to pass as `keep` to `versions.resolve`.
    public var id: String
    public var size: Int64
    public var mtime: Date
    public var modifiedBy: DeviceID
    /// The version vector in display form.
    public var version: String
    public var current: Bool

    public init(id: String, size: Int64, mtime: Date, modifiedBy: DeviceID, version: String, current: Bool) {
        self.id = id
        self.size = size
        self.mtime = mtime
        self.modifiedBy = modifiedBy
        self.version = version
        self.current = current
    }
}

/// Which version survives `versions.resolve`: the current one (conflict versions are
/// discarded) or a conflict version by id (it becomes current). On the wire a string,
/// `"current"` or the id.
public enum VersionChoice: Hashable, Sendable, Codable, CustomStringConvertible {
    case current
    case version(String)

    public init(_ text: String) { self = text == "current" ? .current : .version(text) }

    public var description: String {
        switch self {
        case .current: "current"
        case .version(let id): id
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The params of `versions.resolve`.
public struct VersionsResolveParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String
    public var keep: VersionChoice

    public init(container: ContainerID, path: String, keep: VersionChoice) {
        self.container = container
        self.path = path
        self.keep = keep
    }
}

/// The result of `versions.resolve`: the path and the id of the version now current.
public struct VersionsResolveResult: Hashable, Sendable, Codable {
    public var path: String
    /// The current version's id after the resolution: a conflict version kept becomes a new
    /// version, with an id of its own.
    public var kept: String
    /// The id of the version chosen, as `versions.list` listed it (the current one's for
    /// `"current"`).
    public var chosen: String?

    public init(path: String, kept: String, chosen: String? = nil) {
        self.path = path
        self.kept = kept
        self.chosen = chosen
    }
}

/// The params of `versions.save`: "keep both". Writes the content of one version of `path`
/// (a conflict version, or the current one) to the new path `to`, which must not exist.
/// The new file then syncs like any local change; the conflict itself stays until resolved.
public struct VersionsSaveParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String
    /// A version id from `versions.list`, or `"current"`.
    public var version: VersionChoice
    /// The container-relative path to create.
    public var to: String

    public init(container: ContainerID, path: String, version: VersionChoice, to: String) {
        self.container = container
        self.path = path
        self.version = version
        self.to = to
    }
}

/// The result of `versions.save`: the new file and the version whose content it holds.
public struct VersionsSaveResult: Hashable, Sendable, Codable {
    /// The path written (`to`).
    public var path: String
    /// The id of the version saved.
    public var version: String
    public var size: Int64

    public init(path: String, version: String, size: Int64) {
        self.path = path
        self.version = version
        self.size = size
    }
}
