/// A past version of a file as the devices that answered know it: the same version (path,
/// version vector, size and modification time) kept by this device, by peers, or by both,
/// each under its own id. What `history.list` shows and a restore draws on.
public struct KnownVersion: Sendable, Hashable {
    /// The version as its first holder keeps it (this device, when it is one), with the
    /// earliest time any holder kept it.
    public var entry: HistoryEntry
    /// This device's id for it; nil when only peers keep it.
    public var localID: Int64?
    /// Each peer that keeps it, with that peer's id for it.
    public var peers: [DeviceID: Int64]

    public var path: RelativePath { entry.path }

    /// Merges this device's entries with its peers' (each list newest first) into one list,
    /// newest first; ties keep this device's order.
    public static func merge(local: [HistoryEntry], peers: [PeerHistory]) -> [KnownVersion] {
        var result: [KnownVersion] = []
        var positions: [Key: Int] = [:]
        for entry in local {
            let key = Key(entry)
            if let at = positions[key] {
                result[at].entry.keptAt = min(result[at].entry.keptAt, entry.keptAt)
                continue
            }
            positions[key] = result.count
            result.append(KnownVersion(entry: entry, localID: entry.id, peers: [:]))
        }
        for peer in peers.sorted(by: { $0.device < $1.device }) {
            for entry in peer.entries {
                let key = Key(entry)
                if let at = positions[key] {
                    if result[at].peers[peer.device] == nil { result[at].peers[peer.device] = entry.id }
                    result[at].entry.keptAt = min(result[at].entry.keptAt, entry.keptAt)
                    continue
                }
                positions[key] = result.count
                result.append(KnownVersion(entry: entry, localID: nil, peers: [peer.device: entry.id]))
            }
        }
        return result.enumerated().sorted { ($0.element.entry.keptAt, $1.offset) > ($1.element.entry.keptAt, $0.offset) }.map(\.element)
    }

    /// What makes two devices' entries the same version.
    private struct Key: Hashable {
        var path: RelativePath
        var version: VersionVector
        var size: UInt64
        var mtime: Int64

        init(_ entry: HistoryEntry) {
            path = entry.path
            version = entry.item.version
            size = entry.item.size
            mtime = entry.item.mtime
        }
    }
}
