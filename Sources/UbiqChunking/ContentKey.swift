import Crypto
import UbiqModel

/// Names a file's content by its chunk list (SHA-256 over each chunk's size, little-endian,
/// and hash), in hex: a partly fetched file is kept under this name, so that the next
/// attempt at the same content, after a restart too, finds it.
public enum ContentKey {
    public static func of(_ chunks: [ChunkRef]) -> String {
        var hasher = SHA256()
        for chunk in chunks {
            withUnsafeBytes(of: chunk.size.littleEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(data: chunk.hash.bytes)
        }
        return ChunkHash(bytes: Array(hasher.finalize()))!.hex
    }
}
