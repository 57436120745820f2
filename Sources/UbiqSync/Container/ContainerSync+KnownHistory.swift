import Foundation
import UbiqModel

/// The history across devices: a device keeps only what it replaced or deleted, so a file
/// this device changed in place (or deleted) is in its peers' histories, not its own.
extension ContainerSync {
    /// The past versions of files under `root` (all of the container when nil) that this
    /// device or a connected peer keeps, newest first, with which devices keep each; and the
    /// peers that answered.
    public nonisolated func knownHistory(under root: RelativePath?) async throws -> (versions: [KnownVersion], peers: [PeerHistory]) {
        let local = try history(under: root)
        let peers = await peerHistorySource.withLock({ $0 })?.histories(container: id, under: root) ?? []
        return (KnownVersion.merge(local: local, peers: peers), peers)
    }

    /// Restores a version that this device or a peer keeps, from here where it can.
    func restore(_ version: KnownVersion) async throws {
        if let local = version.localID {
            _ = try await restore(version.path, historyID: local)
            return
        }
        var lastError: any Error = RestoreError(.versionNotFound, "no connected device keeps the version of '\(version.path)'")
        for (peer, number) in version.peers.sorted(by: { $0.key < $1.key }) {
            do {
                _ = try await restore(version.path, historyID: number, from: peer)
                return
            } catch let error as RestoreError where error.code == .versionNotFound {
                lastError = error
            }
        }
        throw lastError
    }
}
