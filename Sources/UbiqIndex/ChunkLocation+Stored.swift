import UbiqModel

extension ChunkLocation.File {
    /// The file as the `chunk.file` column stores it: `i:` and an item's path, `v:` and the
    /// name of a kept conflict version file, or `h:` and the name of a file in the history.
    var stored: String {
        switch self {
        case .item(let path): "i:" + path.rawValue
        case .version(let name): "v:" + name
        case .history(let name): "h:" + name
        }
    }

    /// The file a `chunk.file` value names. Anything but an item's valid path or a version
    /// file's name is corrupt: a row read as the wrong file would serve other bytes.
    init(stored: String) throws(IndexError) {
        let (kind, rest) = (stored.prefix(2), String(stored.dropFirst(2)))
        switch kind {
        case "i:":
            guard let path = try? RelativePath(rest) else { throw IndexError(.corrupt, "a chunk's item path '\(rest)' is invalid") }
            self = .item(path)
        case "v:" where !rest.isEmpty:
            self = .version(rest)
        case "h:" where !rest.isEmpty:
            self = .history(rest)
        default:
            throw IndexError(.corrupt, "a chunk's file '\(stored)' is neither an item, a version file nor a history file")
        }
    }
}
