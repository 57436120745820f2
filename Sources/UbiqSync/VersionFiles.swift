import UbiqChunking
import UbiqModel

/// Names of kept conflict versions inside the container's `.ubiq/versions/`: the path's
/// hash and the version ID, so the name is flat, safe and the same on every device.
enum VersionFiles {
    static func prefix(for path: RelativePath) -> String {
        String(ChunkHasher.hash(Array(path.rawValue.utf8)).hex.prefix(32))
    }

    static func name(for path: RelativePath, id: String) -> String {
        prefix(for: path) + "-" + id
    }
}
