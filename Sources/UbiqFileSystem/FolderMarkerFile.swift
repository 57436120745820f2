#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import UbiqModel

/// Reads what a container folder shows of itself (`FolderProbe`) and writes its marker,
/// `.ubiq/folder`. Neither creates the root: a folder that is not there stays not there.
public enum FolderMarkerFile {
    /// The marker file's path in `layout`.
    public static func path(in layout: ContainerLayout) -> String { layout.agentFolder + "/" + FolderMarker.fileName }

    /// The marker a probe last read, with the stat its file had: while the file keeps that
    /// stat, a probe takes the marker from here instead of reading and decoding it again (the
    /// folder is looked at before and after every scan).
    public final class Cache: Sendable {
        let last = Mutex<(stat: FileStat, marker: FolderMarker)?>(nil)
        public init() {}
    }

    /// The root's stat (following a link the user made to it), the marker, and whether the
    /// root holds anything besides `.ubiq/`.
    public static func probe(_ layout: ContainerLayout, cache: Cache? = nil) -> FolderProbe {
        var st = stat()
        guard stat(layout.root, &st) == 0 else {
            let code = errno
            if code == ENOENT { return FolderProbe(root: .missing) }
            return FolderProbe(root: .unusable(String(cString: strerror(code))))
        }
        guard Posix.kind(of: st.st_mode) == .directory else { return FolderProbe(root: .unusable("it is not a folder")) }
        let root = FolderProbe.Root.folder(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        // With its marker there, what else the folder holds decides nothing (every scan looks).
        let marker = readMarker(layout, cache: cache)
        if case .found = marker { return FolderProbe(root: root, marker: marker, hasEntries: true) }
        guard let dir = opendir(layout.root) else {
            return FolderProbe(root: .unusable("it cannot be listed: \(String(cString: strerror(errno)))"))
        }
        defer { closedir(dir) }
        return FolderProbe(root: root, marker: marker, hasEntries: holdsMore(dir))
    }

    /// Whether the folder holds an entry besides `.`, `..` and `.ubiq`; stops at the first.
    private static func holdsMore(_ dir: OpaquePointer) -> Bool {
        let skipped: Set<[UInt8]> = [[46], [46, 46], Array(RelativePath.agentFolder.utf8)]
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> [UInt8] in
                let bytes = raw.bindMemory(to: UInt8.self)
                return Array(bytes[..<(bytes.firstIndex(of: 0) ?? bytes.count)])
            }
            if !skipped.contains(name) { return true }
        }
        return false
    }

    private static func readMarker(_ layout: ContainerLayout, cache: Cache?) -> FolderProbe.Marker {
        let file = path(in: layout)
        if let cache, let last = cache.last.withLock({ $0 }) {
            var st = stat()
            if lstat(file, &st) == 0, Posix.kind(of: st.st_mode) == .regular, FileStat(st) == last.stat {
                return .found(last.marker)
            }
        }
        let fd = Posix.retrying { open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else {
            let code = errno
            cache?.last.withLock { $0 = nil }
            return code == ENOENT || code == ENOTDIR ? .absent : .unreadable(String(cString: strerror(code)))
        }
        defer { close(fd) }
        var read = stat()
        let readStat = fstat(fd, &read) == 0 ? FileStat(read) : nil
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = Posix.retrying { Glibc.read(fd, &buffer, buffer.count) }
        guard n >= 0 else { return .unreadable(String(cString: strerror(errno))) }
        guard let marker = FolderMarker.decoded(Data(buffer[..<n])) else {
            cache?.last.withLock { $0 = nil }
            return .unreadable("it is not a ubiq folder marker")
        }
        if let readStat { cache?.last.withLock { $0 = (readStat, marker) } }
        return .found(marker)
    }

    /// Writes `marker` durably in place of any other (a temporary file renamed over it),
    /// making `.ubiq/` where it is missing, inside a root that must be there.
    public static func write(_ marker: FolderMarker, in layout: ContainerLayout) throws(FileSystemError) {
        var st = stat()
        guard stat(layout.root, &st) == 0 else { throw FileSystemError.posix(errno, "write the folder marker in", layout.root) }
        try ContainerLayout.makeDirectory(layout.agentFolder, mode: 0o700)
        let target = path(in: layout)
        let staged = target + ".new"
        let fd = Posix.retrying { open(staged, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw FileSystemError.posix(errno, "create", staged) }
        let bytes = [UInt8](marker.encoded())
        let written = bytes.withUnsafeBytes { raw in Posix.retrying { Glibc.write(fd, raw.baseAddress, raw.count) } }
        guard written == bytes.count, fsync(fd) == 0 else {
            let error = FileSystemError.posix(written < 0 ? errno : EIO, "write", staged)
            close(fd)
            unlink(staged)
            throw error
        }
        close(fd)
        guard rename(staged, target) == 0 else {
            let error = FileSystemError.posix(errno, "rename into place", target)
            unlink(staged)
            throw error
        }
        let folder = Posix.retrying { open(layout.agentFolder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }
}
