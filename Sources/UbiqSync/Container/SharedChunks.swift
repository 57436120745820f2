import UbiqChunking
import UbiqModel

/// Chunks that several files of one group share (a template's pages, a library's common
/// header): each is brought once, by the first file that has it, and the others take it
/// from that file's staged copy once the group is assembled (issue 20: "a chunk that occurs
/// many times in a file or a batch is fetched once").
struct SharedChunks: Sendable {
    /// Where a left-out chunk comes from, and where it goes in the file that left it out.
    struct Source: Sendable {
        var path: RelativePath
        /// Its place in `path`.
        var chunk: ChunkRef
        /// Its places in the file that left it out.
        var places: [UInt64]
    }

    /// For each file, the chunks it leaves out, by hash.
    private(set) var borrowed: [RelativePath: [ChunkHash: Source]] = [:]

    /// `files` in the order they are assembled; a chunk goes to the first that has it.
    /// Chunks of zeros are left alone: repeated in a file they stay holes (``ChunkReuse``).
    init(_ files: [Item]) {
        var first: [ChunkHash: (path: RelativePath, chunk: ChunkRef)] = [:]
        for file in files {
            var leftOut: [ChunkHash: Source] = [:]
            for chunk in file.chunks where !ZeroChunks.isZeros(chunk) {
                if var source = leftOut[chunk.hash] {
                    source.places.append(chunk.offset)
                    leftOut[chunk.hash] = source
                } else if let holder = first[chunk.hash], holder.path != file.path, holder.chunk.size == chunk.size {
                    leftOut[chunk.hash] = Source(path: holder.path, chunk: holder.chunk, places: [chunk.offset])
                } else if first[chunk.hash] == nil {
                    first[chunk.hash] = (file.path, chunk)
                }
            }
            if !leftOut.isEmpty { borrowed[file.path] = leftOut }
        }
    }
}
