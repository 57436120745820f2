import Foundation
import UbiqChunking

/// What a container folder holds, path by path, for comparing devices: SHA-256 of each file,
/// "dir" for folders, the link text for symlinks; permissions other than what the process
/// would create (`+x` for an executable file, else ` mode 0600` and the like) follow, so a
/// comparison checks them too. What ubiq never syncs is left out: `.ubiq/` and `*.nosync`.
public enum TreeDigest {
    /// The process umask, read without changing it (`umask()` would, for every thread).
    public static let umask: mode_t = {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        return line.flatMap { mode_t($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) } ?? 0o022
    }()

    /// `""` for the mode a new file or folder gets under `umask` (this process's by default),
    /// else what to add to the digest.
    public static func modeSuffix(_ mode: mode_t, folder: Bool, umask: mode_t = umask) -> String {
        let bits = mode & (folder ? 0o3777 : 0o777)
        if bits == (folder ? 0o777 : 0o666) & ~umask { return "" }
        if !folder, bits == 0o777 & ~umask { return "+x" }
        return " mode " + String(bits, radix: 8)
    }

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
                result[path] = "dir" + modeSuffix(info.st_mode, folder: true)
                try walk(root, relative: path, into: &result)
            case S_IFLNK:
                result[path] = "link:" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + path)) ?? "?")
            case S_IFREG:
                result[path] = try fileHash(root + "/" + path) + modeSuffix(info.st_mode, folder: false)
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
