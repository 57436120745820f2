import Foundation
import UbiqChunking
import UbiqModel

/// Chunk-list requests and answers (protocol 2): how a receiver gets the chunks of the groups
/// a large file's index entry names and it cannot rebuild.
public enum ChunkListMapping {
    /// The most groups one request may ask for; a server answers no more than this.
    public static let maxGroups = 512

    public static func request(id: UInt64, container: ContainerID, path: RelativePath, groups: [ChunkGroup]) -> Ubiq_Wire_ChunkListRequest {
        var request = Ubiq_Wire_ChunkListRequest()
        request.id = id
        request.containerID = container.rawValue
        request.path = path.rawValue
        request.groups = groups.map { Data($0.hash.bytes) }
        return request
    }

    /// The answer from `chunks`, the server's current chunk list of the file: the groups
    /// asked for that it still has, in the order asked.
    public static func response(to request: Ubiq_Wire_ChunkListRequest, chunks: [ChunkRef]) -> Ubiq_Wire_ChunkListResponse {
        var response = Ubiq_Wire_ChunkListResponse()
        response.id = request.id
        let catalog = ChunkGroups.catalog([chunks])
        for wanted in request.groups.prefix(maxGroups) {
            guard let hash = ChunkHash(bytes: Array(wanted)), let slice = catalog[hash] else { continue }
            var group = Ubiq_Wire_GroupChunks()
            group.hash = wanted
            group.chunks = slice.map { chunk in
                var entry = Ubiq_Wire_ChunkEntry()
                entry.size = chunk.size
                entry.hash = Data(chunk.hash.bytes)
                return entry
            }
            response.groups.append(group)
        }
        return response
    }

    /// The groups an answer holds, by hash. Offsets are left at zero: assembling the file's
    /// list places them. A group with a bad entry is left out, so it counts as missing.
    public static func lists(_ response: Ubiq_Wire_ChunkListResponse) -> [ChunkHash: ArraySlice<ChunkRef>] {
        var result: [ChunkHash: ArraySlice<ChunkRef>] = [:]
        for group in response.groups.prefix(maxGroups) {
            guard let hash = ChunkHash(bytes: Array(group.hash)), group.chunks.count <= ChunkGroups.maxChunks else { continue }
            var chunks: [ChunkRef] = []
            chunks.reserveCapacity(group.chunks.count)
            for entry in group.chunks {
                guard entry.size > 0, entry.size <= ItemMapping.maxChunkSize, let chunkHash = ChunkHash(bytes: Array(entry.hash)) else { break }
                chunks.append(ChunkRef(offset: 0, size: entry.size, hash: chunkHash))
            }
            if chunks.count == group.chunks.count { result[hash] = chunks[...] }
        }
        return result
    }
}
