#if canImport(Glibc)
import Glibc
#endif
import UbiqModel

extension FileStat {
    init(_ st: stat) {
        self.init(
            size: UInt64(max(st.st_size, 0)), mtimeNs: Posix.nanoseconds(st.st_mtim),
            ctimeNs: Posix.nanoseconds(st.st_ctim), inode: UInt64(st.st_ino))
    }
}
