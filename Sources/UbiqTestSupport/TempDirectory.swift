import Foundation
import Synchronization

/// A fresh directory for one test under `$TMPDIR` (else `/tmp`), removed with everything in
/// it when the test calls `close()` or drops the fixture, so tests never share state on disk.
public final class TempDirectory: Sendable {
    /// The absolute path of the directory.
    public let path: String
    private let kept = Mutex(false)

    public init(prefix: String = "ubiq-test") throws {
        var base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        if base.isEmpty { base = "/tmp" }
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSLocalizedDescriptionKey: "cannot create a temporary directory under \(base): \(String(cString: strerror(errno)))",
            ])
        }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// `path` joined with a relative path.
    public func appending(_ relative: String) -> String { path + "/" + relative }

    /// Removes the directory and its contents now; safe to call more than once.
    public func close() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Leaves the directory in place when the fixture is dropped, for a look afterwards.
    public func keep() { kept.withLock { $0 = true } }

    deinit {
        if !kept.withLock({ $0 }) { close() }
    }
}
