import Foundation
import UbiqModel

/// Compact encodings for the index's BLOB columns.
enum IndexCoding {
    /// Chunk lists as consecutive (size: UInt32 LE, hash: 32 bytes); offsets are implied.
    static func encode(_ chunks: [ChunkRef]) -> Data {
        var data = Data(capacity: chunks.count * 36)
        for chunk in chunks {
            withUnsafeBytes(of: chunk.size.littleEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: chunk.hash.bytes)
        }
        return data
    }

    static func decodeChunks(_ data: Data) throws(IndexError) -> [ChunkRef] {
        guard data.count % 36 == 0 else { throw IndexError(.corrupt, "chunk list of \(data.count) bytes is not a multiple of 36") }
        var chunks: [ChunkRef] = []
        chunks.reserveCapacity(data.count / 36)
        var offset: UInt64 = 0
        let bytes = [UInt8](data)
        var i = 0
        while i < bytes.count {
            let size = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
            let hash = ChunkHash(bytes: Array(bytes[(i + 4)..<(i + 36)]))!
            chunks.append(ChunkRef(offset: offset, size: size, hash: hash))
            offset += UInt64(size)
            i += 36
        }
        return chunks
    }

    /// Blobs that earlier versions wrote as JSON; ``IndexBinary`` writes everything now.
    static func decode<T: Decodable>(json data: Data, as type: T.Type) throws(IndexError) -> T {
        do { return try JSONDecoder().decode(type, from: data) } catch {
            throw IndexError(.corrupt, "cannot decode \(T.self) from the index: \(error)")
        }
    }
}
