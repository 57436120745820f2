import UbiqModel

/// The outcome of comparing our `Hello` with a peer's: a pure function, testable without I/O.
public enum Handshake {
    /// Versions of the peer protocol this build speaks, newest last. Version 2 adds chunk
    /// groups: a large file's entry names groups of chunks, fetched with `ChunkListRequest`.
    /// Version 3 adds `HistoryRequest`: a device lists its peers' kept versions and restores
    /// one through them. Version 4 adds `DeviceList`: the account's devices and removed
    /// devices, passed between peers. Version 5 adds file packages (`ITEM_KIND_PACKAGE` with
    /// its members), never sent to a peer of an older version. Version 6 adds `ChunkProgress`:
    /// a device tells its peers which bytes it holds of a version it is still assembling, and
    /// serves them.
    public static let supportedVersions: [UInt32] = [1, 2, 3, 4, 5, 6]

    public struct Agreement: Sendable, Equatable {
        public var version: UInt32
        /// Containers both sides share, with the peer's offer for each.
        public var containers: [ContainerID: Ubiq_Wire_ContainerOffer]
        /// Key-value stores both sides take part in, with the peer's offer for each.
        public var stores: [KeyValueStoreID: Ubiq_Wire_StoreOffer] = [:]
    }

    /// Checks the peer's hello against the device its certificate proved and our own offer.
    public static func agree(
        ours: Ubiq_Wire_Hello, theirs: Ubiq_Wire_Hello, authenticatedDevice: DeviceID
    ) throws(WireError) -> Agreement {
        guard theirs.deviceID == authenticatedDevice.rawValue else {
            throw WireError(.wrongDevice, "peer says it is \(theirs.deviceID.prefix(80)) but its certificate is \(authenticatedDevice)")
        }
        guard let version = Set(ours.protocolVersions).intersection(theirs.protocolVersions).max() else {
            throw WireError(.noCommonVersion,
                            "no common protocol version: we speak \(ours.protocolVersions), the peer speaks \(theirs.protocolVersions.prefix(16))")
        }
        let shared = Set(ours.containers.map(\.containerID))
        var containers: [ContainerID: Ubiq_Wire_ContainerOffer] = [:]
        for offer in theirs.containers where shared.contains(offer.containerID) {
            guard let id = try? ContainerID(offer.containerID) else { continue }
            containers[id] = offer
        }
        let ourStores = Set(ours.keyValueStores.map(\.storeID))
        var stores: [KeyValueStoreID: Ubiq_Wire_StoreOffer] = [:]
        for offer in theirs.keyValueStores where ourStores.contains(offer.storeID) {
            guard let id = try? KeyValueStoreID(offer.storeID) else { continue }
            stores[id] = offer
        }
        return Agreement(version: version, containers: containers, stores: stores)
    }
}
