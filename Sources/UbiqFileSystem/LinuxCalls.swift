#if canImport(Glibc)
import Glibc
#endif

/// Linux calls the Glibc module hides (they need `_GNU_SOURCE`), looked up once at run time.
enum LinuxCalls {
    private typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32
    private typealias Syncfs = @convention(c) (Int32) -> Int32

    private static let renameat2: Renameat2? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: Renameat2.self) }
    private static let syncfs: Syncfs? = dlsym(nil, "syncfs").map { unsafeBitCast($0, to: Syncfs.self) }

    static let renameNoReplace: UInt32 = 1

    /// `renameat2(..., RENAME_NOREPLACE)`; EINVAL or ENOSYS where the file system or libc lacks it.
    static func renameNoReplace(_ fromDir: Int32, _ from: String, _ toDir: Int32, _ to: String) -> Int32 {
        guard let renameat2 else {
            errno = ENOSYS
            return -1
        }
        return renameat2(fromDir, from, toDir, to, renameNoReplace)
    }

    static var canSyncFileSystem: Bool { syncfs != nil }

    /// Flushes the whole file system holding `fd`; false where unavailable.
    static func syncFileSystem(_ fd: Int32) -> Bool {
        guard let syncfs else { return false }
        return syncfs(fd) == 0
    }

    /// The process umask, read without changing it (`umask()` would, for every thread).
    static let umask: mode_t = {
        guard let file = fopen("/proc/self/status", "r") else { return 0o022 }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            if text.hasPrefix("Umask:") {
                let digits = text.dropFirst(6).drop(while: { $0 == " " || $0 == "\t" }).prefix { $0.isNumber }
                return mode_t(digits, radix: 8) ?? 0o022
            }
        }
        return 0o022
    }()
}
