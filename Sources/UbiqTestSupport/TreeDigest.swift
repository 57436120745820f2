import Foundation
import UbiqChunking

/// What a container folder holds, path by path, for comparing devices: SHA-256 of each file
/// (with its executable bit), "dir" for folders, the link text for symlinks. What ubiq never
/// syncs is left out: `.ubiq/` and `*.nosync`.
public enum TreeDigest {
    public static func of(_ root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        try walk(root, relative: "", into: &result)
        return result
    }

    private static func walk(_ root: String, relative: String, into result: inout [String: String]) throws {
        let folder = relative.isEmpty ? root : root + "/" + relative
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            if (relative.isEmpty && name == ".ubiq") || name.hasSuffix(".nosync") { continue }
            let path = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard lstat(root + "/" + path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                result[path] = "dir"
                try walk(root, relative: path, into: &result)
            case S_IFLNK:
                result[path] = "link:" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + path)) ?? "?")
            case S_IFREG:
                let executable = info.st_mode & S_IXUSR != 0 ? "+x" : ""
                result[path] = try fileHash(root + "/" + path) + executable
            default:
                continue
            }
        }
    }

    public static func fileHash(_ path: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        return ChunkHasher.hash(data).hex
    }
}
