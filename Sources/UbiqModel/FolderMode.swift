/// Which way a container syncs on this device.
public enum FolderMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Changes go both ways.
    case sendReceive = "send-receive"
    /// This device's changes go out; its peers' are not applied but listed as differences,
    /// until `ubiq override` makes the peers take this device's versions.
    case sendOnly = "send-only"
    /// The peers' changes are applied; this device's own are not announced but listed as
    /// differences, until `ubiq revert` puts the account's versions back.
    case receiveOnly = "receive-only"
}
