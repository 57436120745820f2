import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a piece of a test with the file-system rights of an ordinary user, for tests of what
/// happens when a file or folder cannot be read. CI runs as root, which reads everything;
/// `setfsuid` changes the user the kernel checks file accesses against for one thread only
/// (and takes root's override of permissions with it), so the rest of the test process keeps
/// its rights. Outside root the body simply runs as the current user.
public enum OrdinaryUser {
    /// The user `nobody`.
    public static let uid: UInt32 = 65534

    /// `setfsuid(2)`, which the Glibc module does not export.
    private static let setfsuid: (@convention(c) (UInt32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "setfsuid") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UInt32) -> Int32).self)
    }()

    /// Runs `body` on a thread of its own whose file accesses are checked as `nobody`'s
    /// when the process is root, and returns its result once it ends.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let outcome = Outcome<T>()
        let thread = Thread {
            let asRoot = geteuid() == 0
            if asRoot, let setfsuid { _ = setfsuid(uid) }
            outcome.finish(Result(catching: body))
            if asRoot, let setfsuid { _ = setfsuid(0) }
        }
        thread.start()
        return try outcome.wait().get()
    }

    /// Makes `path` and the folders above it up to `top` searchable by anyone, so that
    /// `nobody` can reach what a test made under its temporary folder.
    public static func open(_ path: String, upTo top: String) {
        var folder = path
        while folder.hasPrefix(top) {
            chmod(folder, 0o755)
            let parent = (folder as NSString).deletingLastPathComponent
            if parent == folder { break }
            folder = parent
        }
    }

    private final class Outcome<T: Sendable>: @unchecked Sendable {
        private let condition = NSCondition()
        private var result: Result<T, any Error>?

        func finish(_ result: Result<T, any Error>) {
            condition.lock()
            self.result = result
            condition.signal()
            condition.unlock()
        }

        func wait() -> Result<T, any Error> {
            condition.lock()
            defer { condition.unlock() }
            while result == nil { condition.wait() }
            return result!
        }
    }
}
