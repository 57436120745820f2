import UbiqModel

/// The params of `container.url` and `container.rescan`.
public struct ContainerURLParams: Hashable, Sendable, Codable {
    public var container: ContainerID

    public init(container: ContainerID) { self.container = container }
}

/// The result of `container.url`, iCloud's `url(forUbiquityContainerIdentifier:)`: where the
/// container's folder is on this device. A container this device does not sync is no error:
/// `url` is absent and `available` false, so a client can offer to work without it.
public struct ContainerURLResult: Hashable, Sendable, Codable {
    public var container: ContainerID
    /// The absolute path of the container's folder; nil when this device does not sync it.
    public var url: String?
    /// True when this device syncs the container and its folder is there now.
    public var available: Bool

    public init(container: ContainerID, url: String?, available: Bool) {
        self.container = container
        self.url = url
        self.available = available
    }
}
