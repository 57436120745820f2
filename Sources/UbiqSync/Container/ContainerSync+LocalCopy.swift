import UbiqIndex
import UbiqModel

/// Chunks a new version shares with what this device already holds are copied, not fetched.
/// Runs of chunks that lie side by side in a file the index vouches for (unchanged since it
/// was hashed) are copied in the kernel without being hashed again; anything else is read
/// and checked chunk by chunk.
extension ContainerSync {
    /// Where one chunk can be copied from.
    private struct Source {
        var chunk: ChunkRef
        var file: ChunkLocation.File
        var offset: UInt64
    }

    /// Copies the chunks held locally into `staged`; returns those still to fetch.
    func copyLocal(_ chunks: [ChunkRef], into staged: any StagedFile, path: RelativePath, facts: AssemblyFacts) throws -> [ChunkRef] {
        // The file's own previous version is the usual source, when it is still as indexed.
        let current = facts.previous[path].flatMap { disk.stat(path) == $0.stat ? $0 : nil }
        let previous = current?.chunks ?? [:]
        let previousStat = current?.stat
        var elsewhere = facts.locations
        if current == nil, let changed = facts.previous[path] {
            // Changed since it was indexed: the chunks it was to give were not looked up elsewhere.
            let hashes = chunks.filter { changed.chunks[$0.hash]?.size == $0.size }.map(\.hash)
            if !hashes.isEmpty, let more = try? index.locations(of: hashes) {
                elsewhere.merge(more) { held, _ in held }
            }
        }
        var missing: [ChunkRef] = []
        var run: [Source] = []
        func flush() throws {
            guard !run.isEmpty else { return }
            defer { run = [] }
            if try copyTrusted(run, previousOf: path, previousStat: previousStat, into: staged) {
                transfers.add(run.reduce(0) { $0 + UInt64($1.chunk.size) }, to: path)
                return
            }
            for source in run {
                if let bytes = readLocal(hash: source.chunk.hash, size: source.chunk.size) {
                    try staged.write(bytes, at: source.chunk.offset)
                    transfers.add(UInt64(source.chunk.size), to: path)
                } else {
                    missing.append(source.chunk)
                }
            }
        }
        for chunk in chunks {
            let source: Source
            if let old = previous[chunk.hash], old.size == chunk.size {
                source = Source(chunk: chunk, file: .item(path), offset: old.offset)
            } else if let location = elsewhere[chunk.hash]?.first(where: { $0.container == id && $0.size == chunk.size }) {
                source = Source(chunk: chunk, file: location.file, offset: location.offset)
            } else {
                try flush()
                missing.append(chunk)
                continue
            }
            if let last = run.last, last.file != source.file || last.offset + UInt64(last.chunk.size) != source.offset
                || last.chunk.offset + UInt64(last.chunk.size) != chunk.offset {
                try flush()
            }
            run.append(source)
        }
        try flush()
        return missing
    }

    /// Copies a run without hashing it when its source file is as the index last saw it;
    /// false (nothing counted) when that cannot be shown, before or after the copy.
    private func copyTrusted(_ run: [Source], previousOf path: RelativePath, previousStat: FileStat?,
                             into staged: any StagedFile) throws -> Bool {
        guard case .item(let file) = run[0].file, let stat = disk.stat(file) else { return false }
        if file == path {
            guard stat == previousStat else { return false }
        } else {
            let atSource = run.map { ChunkRef(offset: $0.offset, size: $0.chunk.size, hash: $0.chunk.hash) }
            guard (try? index.holds(id, path: file, run: atSource, stat: stat)) == true else { return false }
        }
        let length = run.reduce(0) { $0 + UInt64($1.chunk.size) }
        do { try disk.copy(.item(file), offset: run[0].offset, length: length, into: staged, at: run[0].chunk.offset) } catch {
            return false
        }
        // Changed while copied: the bytes may be a mix; the careful path writes them again.
        return disk.stat(file) == stat
    }
}
