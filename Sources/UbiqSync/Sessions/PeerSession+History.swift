import Foundation
import UbiqModel
import UbiqWire

/// Asking the peer about its history (protocol 3): what it keeps, and a kept version's
/// chunk list, so that this device can list the peer's versions and restore one through it.
extension PeerSession {
    /// Whether the peer answers history requests.
    var listsHistory: Bool { (agreement?.version ?? 1) >= 3 }

    /// The peer's kept versions under `path` (the whole container when nil); with `versions`,
    /// only those kept versions of the file `path`, with their whole chunk lists.
    func history(_ container: ContainerID, path: RelativePath?, versions: [Int64] = []) async throws -> PeerHistory {
        guard listsHistory else { throw FetchError("peer \(link.remoteDevice) speaks a protocol without histories") }
        let answer = try await exchange { id in
            Ubiq_Wire_Envelope(.historyRequest(HistoryMapping.request(id: id, container: container, path: path, versions: versions)))
        }
        guard case .historyResponse(let response) = answer else {
            throw FetchError("peer \(link.remoteDevice) answered a history request with something else")
        }
        let (entries, truncated, since) = HistoryMapping.entries(response, withChunks: !versions.isEmpty)
        let inside = entries.filter { $0.path.isWithin(path) }
        return PeerHistory(device: link.remoteDevice, entries: inside, truncated: truncated, since: since)
    }
}
