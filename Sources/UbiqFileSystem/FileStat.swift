#if canImport(Glibc)
import Glibc
#endif

/// The facts of an `lstat` that tell whether a file may have changed since it was hashed:
/// when all four are equal the scanner trusts the old chunk list.
public struct FileStat: Hashable, Sendable, Codable {
    public var size: UInt64
    public var mtimeNs: Int64
    public var ctimeNs: Int64
    public var inode: UInt64

    public init(size: UInt64, mtimeNs: Int64, ctimeNs: Int64, inode: UInt64) {
        self.size = size
        self.mtimeNs = mtimeNs
        self.ctimeNs = ctimeNs
        self.inode = inode
    }

    init(_ st: stat) {
        self.init(
            size: UInt64(max(st.st_size, 0)), mtimeNs: Posix.nanoseconds(st.st_mtim),
            ctimeNs: Posix.nanoseconds(st.st_ctim), inode: UInt64(st.st_ino))
    }
}
