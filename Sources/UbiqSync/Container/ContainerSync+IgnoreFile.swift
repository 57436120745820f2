import Foundation
import UbiqModel

/// `.ubiqignore` read and written for a client (the web page edits it): written like any
/// local change, complete or not at all, and synced to every device.
extension ContainerSync {
    /// The text of `.ubiqignore`; nil where there is none.
    public nonisolated func ignoreFileText() throws -> String? {
        guard let stat = disk.stat(Self.ignoreFile) else { return nil }
        guard stat.size <= UInt64(IgnoreRules.maxFileBytes) else {
            throw IgnoreFileError("\(IgnoreRules.fileName) is \(stat.size) bytes, more than \(IgnoreRules.maxFileBytes); shorten it in an editor")
        }
        let bytes = try disk.read(.item(Self.ignoreFile), offset: 0, size: UInt32(stat.size))
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw IgnoreFileError("\(IgnoreRules.fileName) is not UTF-8 text; fix it in an editor")
        }
        return text
    }

    /// Replaces `.ubiqignore` with `text` (an empty text removes it), then scans it, so the
    /// new rules are in force when this returns.
    public func writeIgnoreFile(_ text: String) async throws {
        let bytes = Array(text.utf8)
        guard bytes.count <= IgnoreRules.maxFileBytes else {
            throw IgnoreFileError("the patterns are \(bytes.count) bytes, more than \(IgnoreRules.maxFileBytes); shorten them")
        }
        if bytes.isEmpty {
            if disk.stat(Self.ignoreFile) != nil { try disk.remove(Self.ignoreFile) }
        } else {
            let permissions = try index.item(id, Self.ignoreFile).flatMap { $0.item.deleted ? nil : $0.item.permissions }
            let staged = try disk.stage()
            do {
                try staged.write(bytes, at: 0)
                let now = Int64(Date().timeIntervalSince1970 * 1e9)
                _ = try disk.commit(staged, to: Self.ignoreFile, metadata: FileMetadata(
                    permissions: permissions ?? .defaults(for: .file), mtime: now), keepReplacedAs: nil)
            } catch {
                staged.discard()
                throw error
            }
        }
        logger.info("ignore file written by a client", metadata: ["bytes": "\(bytes.count)"])
        await localChanges([Self.ignoreFile])
    }
}

/// `.ubiqignore` could not be read or written as asked, with what to do.
public struct IgnoreFileError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
