/// The `ubiqd` command-line flags, exactly as typed, before any checking.
///
/// A flag given wins over the config file. A repeatable flag, once given, replaces the
/// file's whole list for that key: `--peer a:1 --peer b:2` means exactly those two peers,
/// whatever `peers` says in the file. Paths may start with `~/`; other relative paths
/// (except `config`) are refused, so the caller should make them absolute first.
public struct ConfigOverrides: Hashable, Sendable {
    /// `--state DIR`
    public var state: String?
    /// `--config FILE`: must exist when given.
    public var config: String?
    /// `--listen HOST:PORT`, repeatable.
    public var listen: [String]
    /// `--peer HOST:PORT`, repeatable.
    public var peers: [String]
    /// `--container ID[=PATH]`, repeatable; without a path the folder is `~/Ubiquity/ID`.
    public var containers: [String]
    /// `--no-discovery`; false leaves the file's setting alone.
    public var noDiscovery: Bool
    /// `--socket PATH`
    public var socket: String?
    /// `--kvstore ID`, repeatable.
    public var kvstores: [String]
    /// `--device-name NAME`
    public var deviceName: String?
    /// `--log-level LEVEL`
    public var logLevel: String?
    /// `--ui-listen HOST:PORT`: where the web page is served.
    public var uiListen: String?
    /// `--no-ui`; false leaves the file's setting alone.
    public var noUI: Bool
    /// `--join-port PORT`: where an open invitation takes joins (0: any).
    public var joinPort: Int?

    public init(
        state: String? = nil,
        config: String? = nil,
        listen: [String] = [],
        peers: [String] = [],
        containers: [String] = [],
        noDiscovery: Bool = false,
        socket: String? = nil,
        kvstores: [String] = [],
        deviceName: String? = nil,
        logLevel: String? = nil,
        uiListen: String? = nil,
        noUI: Bool = false,
        joinPort: Int? = nil
    ) {
        self.state = state
        self.config = config
        self.listen = listen
        self.peers = peers
        self.containers = containers
        self.noDiscovery = noDiscovery
        self.socket = socket
        self.kvstores = kvstores
        self.deviceName = deviceName
        self.logLevel = logLevel
        self.uiListen = uiListen
        self.noUI = noUI
        self.joinPort = joinPort
    }
}
