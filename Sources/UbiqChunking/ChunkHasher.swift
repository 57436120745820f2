import Crypto
import Foundation
import UbiqModel

/// SHA-256 of chunk bytes, the name of every chunk in ubiq.
public enum ChunkHasher {
    public static func hash(_ bytes: some ContiguousBytes) -> ChunkHash {
        bytes.withUnsafeBytes { hash(buffer: $0) }
    }

    public static func hash(buffer: UnsafeRawBufferPointer) -> ChunkHash {
        var hasher = SHA256()
        hasher.update(bufferPointer: buffer)
        let digest = hasher.finalize()
        return digest.withUnsafeBytes { ChunkHash(bytes: Array($0))! }
    }
}
