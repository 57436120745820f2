import UbiqModel

/// Every setting the agent runs with, after defaults, the config file and the command line
/// have been merged and checked (see `ConfigLoader`); services get the small option structs
/// derived from it, never the whole value.
public struct AgentConfiguration: Hashable, Sendable {
    /// Keys, certificates, the index and conflict versions live here.
    public var stateDirectory: String
    /// The config file that was read, if any.
    public var configFile: String?
    /// How this device is shown to its peers.
    public var deviceName: String
    /// Where the peer protocol listens.
    public var listen: [HostPort]
    /// True when neither the file nor a flag set `listen`: the agent then listens dual-stack
    /// on `[::]` and, on a host without IPv6, on `0.0.0.0` instead (`ipv4Listen`). An address
    /// the user wrote is used as written.
    public var listenIsDefault: Bool
    /// Peers dialled without discovery.
    public var peers: [HostPort]
    /// Whether peers are found with DNS-SD on the local network.
    public var discovery: Bool
    /// Where an open invitation takes joins (`join_port`): the first listen port's next by
    /// default (22101), so a firewall can let it through; 0 where the system picks one.
    public var joinPort: Int = defaultPort + 1
    /// The control socket that `ubiq` talks to.
    public var socketPath: String
    /// Unique ids; no folder equals, contains or lies inside another or the state directory.
    public var containers: [ContainerSettings]
    /// Identifiers of the key-value stores this device takes part in.
    public var kvstores: [String]
    /// Folder extensions treated as one document, lower case, without the dot.
    public var packageExtensions: [String]
    public var closeDelayMs: Int
    public var modifyDelayMs: Int
    public var maxDelayMs: Int
    public var keyValueLimits: KeyValueLimits
    /// One of `logLevels`, the raw values of swift-log's `Logger.Level`.
    public var logLevel: String
    /// The most KiB a second sent to all peers together, and received; nil: no limit.
    /// Changed at run time with `limits.set`.
    public var maxSendKiBPerSecond: Int? = nil
    public var maxReceiveKiBPerSecond: Int? = nil
    /// Limits of single peers, each device once; changed at run time with `limits.set`.
    public var peerLimits: [PeerLimit] = []
    /// Where the web page is served; nil: not at all (`ui = false`, `--no-ui`). Loopback by
    /// default: any other address must be set, and the agent warns of it.
    public var ui: HostPort? = defaultUI

    /// The highest rate limit taken: 100 GiB a second.
    public static let maxRateKiB = 100 << 20

    public static let defaultPort = 22100
    /// Dual-stack: IPv6 peers and IPv4 peers (as v4-mapped addresses) on one socket.
    public static let defaultListen = [HostPort(unchecked: "::", port: defaultPort)]
    /// Where the default listen address falls back to on a host with no IPv6.
    public static let ipv4Listen = HostPort(unchecked: "0.0.0.0", port: defaultPort)
    public static let defaultUI = HostPort(unchecked: "127.0.0.1", port: 22180)
    public static let defaultPackageExtensions = ["pages", "numbers", "key", "rtfd", "bundle"]
    public static let defaultContainerID = try! ContainerID("ubiq.drive")
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// The configuration used when there is no config file and no flag: one container
    /// `ubiq.drive` at `~/Ubiquity/ubiq.drive`, paths from `paths`.
    public static func defaults(paths: DefaultPaths, hostName: String) -> AgentConfiguration {
        let state = PathRules.normalised(paths.stateDirectory)
        return AgentConfiguration(
            stateDirectory: state,
            configFile: nil,
            deviceName: hostName.isEmpty ? "ubiq-device" : hostName,
            listen: defaultListen,
            listenIsDefault: true,
            peers: [],
            discovery: true,
            socketPath: PathRules.normalised(paths.controlSocket(stateDirectory: state)),
            containers: [ContainerSettings(
                id: defaultContainerID,
                path: PathRules.normalised(paths.containerFolder(defaultContainerID))
            )],
            kvstores: [],
            packageExtensions: defaultPackageExtensions,
            closeDelayMs: 2,
            modifyDelayMs: 200,
            maxDelayMs: 1000,
            keyValueLimits: .iCloud,
            logLevel: "info"
        )
    }

    public var watcherOptions: WatcherOptions {
        WatcherOptions(
            packageExtensions: packageExtensions,
            closeDelay: .milliseconds(closeDelayMs),
            modifyDelay: .milliseconds(modifyDelayMs),
            maxDelay: .milliseconds(maxDelayMs)
        )
    }
}
