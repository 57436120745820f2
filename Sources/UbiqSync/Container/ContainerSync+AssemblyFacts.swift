import UbiqIndex
import UbiqModel

/// What the index knows that assembling files draws on, read once for a group of them.
struct AssemblyFacts: Sendable {
    /// A file to assemble: its path, its chunks, and the version, when it has one peers hold.
    struct File: Sendable {
        var path: RelativePath
        var chunks: [ChunkRef]
        var version: VersionVector?
    }

    /// Each file's previous version, where it is a file whose content is here: its chunks
    /// by hash and the stat it was indexed with.
    var previous: [RelativePath: (chunks: [ChunkHash: ChunkRef], stat: FileStat)] = [:]
    /// Where the chunks not in a file's previous version can be read.
    var locations: [ChunkHash: [ChunkLocation]] = [:]
    /// The peers that hold each file's version.
    var holders: [RelativePath: [DeviceID]] = [:]

    /// The chunks of `indexed` by hash and its stat, when it is a file whose content is here.
    static func previousVersion(_ indexed: IndexedItem) -> (chunks: [ChunkHash: ChunkRef], stat: FileStat)? {
        guard !indexed.item.deleted, indexed.item.kind == .file, indexed.downloaded, let stat = indexed.stat,
              !indexed.item.chunks.isEmpty else { return nil }
        var chunks: [ChunkHash: ChunkRef] = [:]
        for chunk in indexed.item.chunks where chunks[chunk.hash] == nil { chunks[chunk.hash] = chunk }
        return (chunks, stat)
    }
}

extension ContainerSync {
    /// Reads, for a group of files about to be assembled, what the index knows that they
    /// draw on: their previous versions, where their other chunks lie, and which peers hold
    /// them. Three reads for the whole group, not three per file.
    func assemblyFacts(for files: [AssemblyFacts.File], previous: [RelativePath: IndexedItem]? = nil) -> AssemblyFacts {
        var facts = AssemblyFacts()
        let indexed = previous ?? (try? index.items(id, at: files.map(\.path))) ?? [:]
        var wanted: Set<ChunkHash> = []
        for file in files {
            let old = indexed[file.path].flatMap(AssemblyFacts.previousVersion)
            facts.previous[file.path] = old
            for chunk in file.chunks where old?.chunks[chunk.hash]?.size != chunk.size { wanted.insert(chunk.hash) }
        }
        if !wanted.isEmpty { facts.locations = (try? index.locations(of: wanted)) ?? [:] }
        var versions: [RelativePath: VersionVector] = [:]
        for file in files { if let version = file.version { versions[file.path] = version } }
        facts.holders = (try? index.holders(id, of: versions)) ?? [:]
        return facts
    }
}
