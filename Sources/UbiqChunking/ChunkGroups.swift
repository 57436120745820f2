import Crypto
import UbiqModel

/// A run of consecutive chunks of a file's chunk list, named by one hash.
///
/// A large file's index entry names its groups instead of its thousands of chunks, so a
/// change costs a peer the lists of the groups it cannot rebuild from its own copy, not the
/// whole list again.
public struct ChunkGroup: Hashable, Sendable {
    /// SHA-256 over each chunk's size (4 bytes, little-endian) and hash, in order.
    public var hash: ChunkHash
    public var count: Int
    public var size: UInt64

    public init(hash: ChunkHash, count: Int, size: UInt64) {
        self.hash = hash
        self.count = count
        self.size = size
    }
}

/// Splits chunk lists into content-defined groups and puts lists back together from them.
///
/// A group ends after a chunk whose hash has the low six bits of its first byte clear
/// (about 64 chunks), or at ``maxChunks``. Boundaries depend only on the chunks themselves,
/// so after an insertion they fall where they fell before and only the groups around the
/// change differ: the same idea as content-defined chunking (Xia et al., "FastCDC", USENIX
/// ATC 2016), one level up.
public enum ChunkGroups {
    public static let maxChunks = 256
    /// Files with fewer chunks than this are announced with their whole list; grouping would
    /// save little.
    public static let threshold = 256

    public static func ranges(_ chunks: [ChunkRef]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        for (index, chunk) in chunks.enumerated() {
            let count = index + 1 - start
            if chunk.hash.bytes[0] & 63 == 0 || count == maxChunks {
                result.append(start..<index + 1)
                start = index + 1
            }
        }
        if start < chunks.count { result.append(start..<chunks.count) }
        return result
    }

    public static func hash(_ chunks: some Collection<ChunkRef>) -> ChunkHash {
        var hasher = SHA256()
        for chunk in chunks {
            withUnsafeBytes(of: chunk.size.littleEndian) { hasher.update(bufferPointer: $0) }
            chunk.hash.bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        }
        return hasher.finalize().withUnsafeBytes { ChunkHash(bytes: Array($0))! }
    }

    /// The groups of a chunk list, each with where it lies in the list.
    public static func groups(_ chunks: [ChunkRef]) -> [(group: ChunkGroup, range: Range<Int>)] {
        ranges(chunks).map { range in
            let slice = chunks[range]
            let size = slice.reduce(UInt64(0)) { $0 + UInt64($1.size) }
            return (ChunkGroup(hash: hash(slice), count: range.count, size: size), range)
        }
    }

    /// Every group of the given lists by its hash, with its chunks.
    public static func catalog(_ lists: [[ChunkRef]]) -> [ChunkHash: ArraySlice<ChunkRef>] {
        var result: [ChunkHash: ArraySlice<ChunkRef>] = [:]
        for chunks in lists {
            for (group, range) in groups(chunks) { result[group.hash] = chunks[range] }
        }
        return result
    }

    /// Whether `chunks` are exactly what `group` names.
    public static func matches(_ chunks: some Collection<ChunkRef>, _ group: ChunkGroup) -> Bool {
        chunks.count == group.count && chunks.reduce(UInt64(0), { $0 + UInt64($1.size) }) == group.size
            && hash(chunks) == group.hash
    }

    /// The whole chunk list the groups name, with offsets from the start of the file; nil
    /// when a group's chunks are not in `lists` or do not match it.
    public static func assemble(_ groups: [ChunkGroup], from lists: [ChunkHash: ArraySlice<ChunkRef>]) -> [ChunkRef]? {
        // Counts are a peer's claims until the lists match them: reserve only for those.
        var found: [ArraySlice<ChunkRef>] = []
        found.reserveCapacity(groups.count)
        for group in groups {
            guard let chunks = lists[group.hash], matches(chunks, group) else { return nil }
            found.append(chunks)
        }
        var result: [ChunkRef] = []
        result.reserveCapacity(found.reduce(0) { $0 + $1.count })
        var offset: UInt64 = 0
        for chunks in found {
            for chunk in chunks {
                result.append(ChunkRef(offset: offset, size: chunk.size, hash: chunk.hash))
                offset += UInt64(chunk.size)
            }
        }
        return result
    }

    /// The groups of `groups` that `lists` cannot fill.
    public static func missing(_ groups: [ChunkGroup], from lists: [ChunkHash: ArraySlice<ChunkRef>]) -> [ChunkGroup] {
        groups.filter { group in lists[group.hash].map { !matches($0, group) } ?? true }
    }
}
