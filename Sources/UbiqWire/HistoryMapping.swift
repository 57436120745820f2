import Foundation
import UbiqModel

/// Kept versions on the wire (protocol 3): how a device lists its history to a peer, and hands
/// over a kept version's chunk list so that the peer can restore it through this device.
/// Decoding checks each version as an index entry is checked; a bad one is left out.
public enum HistoryMapping {
    /// The most versions one listing holds (the newest).
    public static let maxListed = 10_000
    /// The most versions one request may ask for with their chunk lists.
    public static let maxWithChunks = 64
    /// The most bytes of versions one answer holds, below the frame limit.
    public static let maxAnswerBytes = Ubiq_Wire_Envelope.maxFrameSize - (1 << 20)

    /// Asks for the versions kept under `path` (a file or folder; the whole container when
    /// nil), or, with `versions`, for those kept versions of the file `path` with their chunks.
    public static func request(id: UInt64, container: ContainerID, path: RelativePath?, versions: [Int64] = []) -> Ubiq_Wire_HistoryRequest {
        var request = Ubiq_Wire_HistoryRequest()
        request.id = id
        request.containerID = container.rawValue
        request.path = path?.rawValue ?? ""
        request.versions = versions.prefix(maxWithChunks).map { UInt64($0) }
        return request
    }

    /// The path a request names; nil for the whole container. Throws for a path that is not
    /// one.
    public static func path(of request: Ubiq_Wire_HistoryRequest) throws(WireError) -> RelativePath? {
        guard !request.path.isEmpty else { return nil }
        do { return try RelativePath(request.path) } catch {
            throw WireError(.invalidPath, "refused path '\(request.path.prefix(200))': \(error.reason)")
        }
    }

    /// The versions asked for by id, at most ``maxWithChunks``.
    public static func wanted(_ request: Ubiq_Wire_HistoryRequest) -> Set<Int64> {
        Set(request.versions.prefix(maxWithChunks).compactMap { Int64(exactly: $0) })
    }

    /// The answer from `entries` (newest first): a listing names large files' chunk groups,
    /// an answer to versions asked for by id lists every chunk. Truncated where the next
    /// version would not fit.
    public static func response(to request: Ubiq_Wire_HistoryRequest, entries: [HistoryEntry], since: Int64?) -> Ubiq_Wire_HistoryResponse {
        var response = Ubiq_Wire_HistoryResponse()
        response.id = request.id
        response.historySinceMs = since ?? 0
        let withChunks = !request.versions.isEmpty
        var bytes = 0
        for entry in entries {
            guard response.versions.count < (withChunks ? maxWithChunks : maxListed) else {
                response.truncated = true
                break
            }
            let kept = keptVersion(entry, withChunks: withChunks)
            let size = (try? kept.serializedBytes() as [UInt8])?.count ?? maxAnswerBytes
            guard bytes + size <= maxAnswerBytes else {
                response.truncated = true
                break
            }
            bytes += size + 8
            response.versions.append(kept)
        }
        return response
    }

    /// One kept version on the wire.
    public static func keptVersion(_ entry: HistoryEntry, withChunks: Bool) -> Ubiq_Wire_KeptVersion {
        var kept = Ubiq_Wire_KeptVersion()
        kept.id = UInt64(entry.id)
        kept.item = ItemMapping.fileInfo(entry.item, sequence: 0, grouped: !withChunks)
        kept.keptAtMs = entry.keptAt
        kept.reason = switch entry.reason {
        case .replaced: .replaced
        case .deleted: .deleted
        case .resolved: .resolved
        }
        kept.by = entry.by.rawValue
        return kept
    }

    /// A peer's answer: its versions, checked (a listed large file comes with an empty chunk
    /// list), whether it held more, and when its history starts.
    public static func entries(_ response: Ubiq_Wire_HistoryResponse, withChunks: Bool)
        -> (entries: [HistoryEntry], truncated: Bool, since: Int64?)
    {
        let entries = response.versions.prefix(withChunks ? maxWithChunks : maxListed).compactMap { try? entry($0, withChunks: withChunks) }
        return (entries, response.truncated, response.historySinceMs > 0 ? response.historySinceMs : nil)
    }

    static func entry(_ kept: Ubiq_Wire_KeptVersion, withChunks: Bool) throws(WireError) -> HistoryEntry {
        guard let id = Int64(exactly: kept.id), id > 0 else { throw WireError(.malformed, "a kept version without an id") }
        let item = withChunks ? try ItemMapping.item(kept.item) : try ItemMapping.announced(kept.item).item
        guard item.kind == .file, !item.deleted else {
            throw WireError(.malformed, "kept version \(id) of '\(item.path)' is not a file")
        }
        let reason: HistoryEntry.Reason = switch kept.reason {
        case .replaced: .replaced
        case .deleted: .deleted
        case .resolved: .resolved
        case .UNRECOGNIZED(let raw): throw WireError(.malformed, "unknown reason \(raw) for kept version \(id)")
        }
        return HistoryEntry(id: id, item: item, name: "", keptAt: kept.keptAtMs, reason: reason, by: try ItemMapping.device(kept.by))
    }
}
