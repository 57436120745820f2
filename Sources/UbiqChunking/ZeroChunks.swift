import Synchronization
import UbiqModel

/// Recognizes a chunk of zeros by its hash: a hole in a sparse file (or zeros written) is
/// never fetched and never written, and stays a hole where the file is put together. The
/// hash of each size asked about is computed once.
public enum ZeroChunks {
    private static let hashes = Mutex<[UInt32: ChunkHash]>([:])

    public static func isZeros(_ chunk: ChunkRef) -> Bool {
        hash(ofZeros: chunk.size) == chunk.hash
    }

    static func hash(ofZeros size: UInt32) -> ChunkHash {
        if let known = hashes.withLock({ $0[size] }) { return known }
        let computed = ChunkHasher.hash([UInt8](repeating: 0, count: Int(size)))
        hashes.withLock { $0[size] = computed }
        return computed
    }
}
