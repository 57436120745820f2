import UbiqModel

/// The settings one source (the config file or the flags) gives, checked one by one;
/// `nil` means the source says nothing about that key.
struct ConfigLayer: Sendable {
    struct Container: Sendable {
        var settings: ContainerSettings
        var origin: ConfigOrigin
    }

    struct Store: Sendable {
        var id: String
        var origin: ConfigOrigin
    }

    var state: String?
    var deviceName: String?
    var listen: [HostPort]?
    var peers: [HostPort]?
    var socket: String?
    var discovery: Bool?
    var logLevel: String?
    var packageExtensions: [String]?
    var closeDelayMs: Int?
    var modifyDelayMs: Int?
    var maxDelayMs: Int?
    var containers: [Container]?
    var kvstores: [Store]?
    var maxStoreBytes: Int?
    var maxKeys: Int?
    var maxKeyBytes: Int?
    var maxValueBytes: Int?
    /// Where `modifyDelayMs` and `maxDelayMs` came from, for the cross-check.
    var delayOrigin: ConfigOrigin?
    var maxSendKiB: Int?
    var maxReceiveKiB: Int?
    var peerLimits: [PeerLimit]?
    var uiEnabled: Bool?
    var uiListen: HostPort?
    var joinPort: Int?

    /// Each key `other` sets wins; lists are replaced, not merged.
    func overridden(by other: ConfigLayer) -> ConfigLayer {
        ConfigLayer(
            state: other.state ?? state,
            deviceName: other.deviceName ?? deviceName,
            listen: other.listen ?? listen,
            peers: other.peers ?? peers,
            socket: other.socket ?? socket,
            discovery: other.discovery ?? discovery,
            logLevel: other.logLevel ?? logLevel,
            packageExtensions: other.packageExtensions ?? packageExtensions,
            closeDelayMs: other.closeDelayMs ?? closeDelayMs,
            modifyDelayMs: other.modifyDelayMs ?? modifyDelayMs,
            maxDelayMs: other.maxDelayMs ?? maxDelayMs,
            containers: other.containers ?? containers,
            kvstores: other.kvstores ?? kvstores,
            maxStoreBytes: other.maxStoreBytes ?? maxStoreBytes,
            maxKeys: other.maxKeys ?? maxKeys,
            maxKeyBytes: other.maxKeyBytes ?? maxKeyBytes,
            maxValueBytes: other.maxValueBytes ?? maxValueBytes,
            delayOrigin: other.delayOrigin ?? delayOrigin,
            maxSendKiB: other.maxSendKiB ?? maxSendKiB,
            maxReceiveKiB: other.maxReceiveKiB ?? maxReceiveKiB,
            peerLimits: other.peerLimits ?? peerLimits,
            uiEnabled: other.uiEnabled ?? uiEnabled,
            uiListen: other.uiListen ?? uiListen,
            joinPort: other.joinPort ?? joinPort
        )
    }
}
