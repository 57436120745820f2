import UbiqModel

/// The params of `item.startDownloading`: with `wait`, the answer comes when the content is
/// here (or `downloaded: false` after `timeout` seconds, default 60).
public struct ItemDownloadParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String
    public var wait: Bool?
    public var timeout: Double?

    public init(container: ContainerID, path: String, wait: Bool? = nil, timeout: Double? = nil) {
        self.container = container
        self.path = path
        self.wait = wait
        self.timeout = timeout
    }
}

/// The result of `item.startDownloading`.
public struct ItemDownloadResult: Hashable, Sendable, Codable {
    public var downloaded: Bool

    public init(downloaded: Bool) { self.downloaded = downloaded }
}

/// The params of `item.evict` (and of any method that names one item).
public struct ItemPathParams: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String

    public init(container: ContainerID, path: String) {
        self.container = container
        self.path = path
    }
}

/// The params of a `coordinate.progress` notification.
public struct DownloadProgressNotice: Hashable, Sendable, Codable {
    public var container: ContainerID
    public var path: String
    public var done: Int64
    public var total: Int64

    public init(container: ContainerID, path: String, done: Int64, total: Int64) {
        self.container = container
        self.path = path
        self.done = done
        self.total = total
    }
}
