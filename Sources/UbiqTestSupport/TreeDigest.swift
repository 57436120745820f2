import Foundation
import UbiqChunking
import UbiqFileSystem
import UbiqModel

/// What a container folder holds, path by path, for comparing devices: SHA-256 of each file,
/// "dir" for folders, the link text for symlinks; permissions other than what the process
/// would create (`+x` for an executable file, else ` mode 0600` and the like) follow, then
/// the `user.` extended attributes, so a comparison checks them too. What ubiq never syncs is left out: `.ubiq/` and `*.nosync`.
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

    /// `""` for no attributes, else each `name=value` (value in hex) in order.
    public static func attributeSuffix(_ attributes: ExtendedAttributes) -> String {
        attributes.attributes.map { " \($0.name)=" + $0.value.map { String(format: "%02x", $0) }.joined() }.joined()
    }

    private static func attributeSuffix(_ path: String) -> String {
        do { return attributeSuffix(try ExtendedAttributes.read(atPath: path)) } catch { return " attributes unreadable: \(error)" }
    }

    /// Keyed by path; paths that Swift's `String ==` takes for one (`café` in NFC and in NFD)
    /// are keyed by their bytes escaped (``escaped(_:)``), so that each is compared.
    public static func of(_ root: String) throws -> [String: String] {
        var entries: [(path: String, value: String)] = []
        try walk(root, relative: "") { path, info in
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                entries.append((path, "dir" + modeSuffix(info.st_mode, folder: true) + attributeSuffix(root + "/" + path)))
            case S_IFLNK:
                entries.append((path, "link:" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + path)) ?? "?")))
            default:
                entries.append((path, try fileHash(root + "/" + path) + modeSuffix(info.st_mode, folder: false) + attributeSuffix(root + "/" + path)))
            }
        }
        return keyed(entries)
    }

    /// Each entry's mtime in nanoseconds (a link's own), for comparing devices, except that
    /// of `Documents/` itself, which is no item: every device keeps its own. Keyed as by
    /// ``of(_:)``.
    public static func times(of root: String) throws -> [String: Int64] {
        var entries: [(path: String, value: Int64)] = []
        try walk(root, relative: "") { path, info in
            if path != "Documents" { entries.append((path, Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))) }
        }
        return keyed(entries)
    }

    /// A path's bytes with every byte outside printable ASCII written `\xNN`.
    public static func escaped(_ path: String) -> String {
        path.utf8.map { (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\\") ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }
            .joined()
    }

    /// The entries by path, those whose paths Swift takes for one by their bytes escaped.
    private static func keyed<Value>(_ entries: [(path: String, value: Value)]) -> [String: Value] {
        var result: [String: Value] = [:]
        for (path, group) in Dictionary(grouping: entries, by: \.path) {
            if group.count == 1 {
                result[path] = group[0].value
            } else {
                for entry in group { result[escaped(entry.path)] = entry.value }
            }
        }
        return result
    }

    /// Calls `visit` with each folder, link and file that ubiq syncs, and its `lstat`.
    private static func walk(_ root: String, relative: String, visit: (String, stat) throws -> Void) throws {
        let folder = relative.isEmpty ? root : root + "/" + relative
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            if (relative.isEmpty && name == ".ubiq") || name.hasSuffix(".nosync") { continue }
            let path = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard lstat(root + "/" + path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                try visit(path, info)
                try walk(root, relative: path, visit: visit)
            case S_IFLNK, S_IFREG:
                try visit(path, info)
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
