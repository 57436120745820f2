import Foundation
import UbiqModel

/// One path of a `coordinate.acquire` request and the access wanted.
public struct CoordinationItem: Hashable, Sendable, Codable {
    public var path: String
    /// `read` (shared with other readers) or `write` (excludes everyone).
    public var access: String

    public init(path: String, access: String) {
        self.path = path
        self.access = access
    }
}

/// The params of `coordinate.acquire`: one `path` and `access`, or several `items` granted
/// together (NSFileCoordinator's "read A while writing B"). The answer comes when the lease
/// is granted, or an error after `timeout` seconds (default 30).
public struct CoordinateAcquireParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String?
    public var access: String?
    public var items: [CoordinationItem]?
    public var timeout: Double?

    public init(container: ContainerID, items: [CoordinationItem], timeout: Double? = nil) {
        self.container = container
        self.items = items
        self.timeout = timeout
    }
}

/// The result of `coordinate.acquire`: the lease to pass to `coordinate.release`. It also
/// ends when its connection does.
public struct CoordinateAcquireResult: Hashable, Sendable, Codable {
    public var lease: UInt64

    public init(lease: UInt64) { self.lease = lease }
}

/// The params of `coordinate.release`.
public struct CoordinateReleaseParams: Hashable, Sendable, Codable {
    public var lease: UInt64

    public init(lease: UInt64) { self.lease = lease }
}

/// The params of `presenter.register`: the document (or folder) to watch.
public struct PresenterRegisterParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String

    public init(container: ContainerID, path: String) {
        self.container = container
        self.path = path
    }
}

/// The result of `presenter.register`, and the params of `presenter.unregister`.
public struct PresenterID: Hashable, Sendable, Codable {
    public var presenter: UInt64

    public init(presenter: UInt64) { self.presenter = presenter }
}

/// The params of every `presenter.*` notification. `path` is the item the event is about:
/// the presented item or, for a folder, something inside it.
public struct PresenterEvent: Hashable, Sendable, Codable {
    public var presenter: UInt64
    public var container: ContainerID
    public var path: String
    /// `didMove` only: where the item is now. A presenter follows its item when it moves.
    public var to: String?
    /// `local` (made on this device) or `remote` (arrived from a peer).
    public var origin: String
    /// The version vector, for `didChange` and `conflict`.
    public var version: String?
    /// `conflict` only: ids of the unresolved conflict versions.
    public var conflicts: [String]?

    public init(presenter: UInt64, container: ContainerID, path: String, to: String? = nil, origin: String,
                version: String? = nil, conflicts: [String]? = nil) {
        self.presenter = presenter
        self.container = container
        self.path = path
        self.to = to
        self.origin = origin
        self.version = version
        self.conflicts = conflicts
    }
}

/// The params of `events.subscribe`: one container, or every container when absent.
public struct EventsSubscribeParams: Hashable, Sendable, Codable {
    public var container: ContainerID?

    public init(container: ContainerID? = nil) { self.container = container }
}

/// The params of a `subscription.fellBehind` notification: a subscription whose client read
/// its notifications too slowly was ended rather than let the agent's memory grow or lose
/// notices silently. Subscribe again and look at the current state (a new query, `items.list`).
public struct FellBehindNotice: Hashable, Sendable, Codable {
    /// The notification that stopped: `events.item`, `kv.didChangeExternally`, a presenter's
    /// or `query.update`.
    public var method: String
    public var presenter: UInt64?
    public var query: String?

    /// `method` for a presenter: it stands for all of its `presenter.*` notifications.
    public static let presenterMethod = "presenter"

    public init(method: String, presenter: UInt64? = nil, query: String? = nil) {
        self.method = method
        self.presenter = presenter
        self.query = query
    }
}

/// The result of `events.subscribe`: the containers now watched.
public struct EventsSubscribeResult: Hashable, Sendable, Codable {
    public var containers: [ContainerID]

    public init(containers: [ContainerID]) { self.containers = containers }
}

/// The params of an `events.item` notification: one change the agent recorded.
public struct ItemEvent: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String
    /// `changed` (created or modified), `deleted`, `moved` (then `to` says where), or
    /// `failed`: a peer's change could not be applied here (origin `remote`), or a path on
    /// disk cannot be synced (origin `local`: unreadable, or a name that is not valid UTF-8);
    /// then `error` says why. A peer's change is retried, and a later event says when it
    /// went through.
    public var change: String
    public var to: String?
    /// Absent for a path on disk the agent could not look at.
    public var kind: ItemKind?
    public var origin: String
    public var version: String
    public var modifiedBy: DeviceID
    /// Unresolved conflict versions the item now has.
    public var conflicts: Int
    public var error: String?

    public init(container: ContainerID, path: String, change: String, to: String?, kind: ItemKind?, origin: String,
                version: String, modifiedBy: DeviceID, conflicts: Int, error: String? = nil) {
        self.container = container
        self.path = path
        self.change = change
        self.to = to
        self.kind = kind
        self.origin = origin
        self.version = version
        self.modifiedBy = modifiedBy
        self.conflicts = conflicts
        self.error = error
    }
}
