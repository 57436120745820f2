import Foundation
import Testing
import UbiqIndex
import UbiqModel
import UbiqSync
import UbiqTestSupport

/// A folder whose own attributes alone changed is looked at alone: the agent puts back a
/// folder's mtime after each file it places there, and rescanning the whole folder for each
/// made every arriving record log cost more than the one before. A changed mode still
/// rescans what the folder holds, which may have become readable.
struct FolderAloneScanTests {
    @Test func aFolderAloneIsRecordedWithoutItsFilesUntilItsModeChanges() async throws {
        let real = try RealContainer(prefix: "ubiq-folder-alone")
        let (id, index, container) = (real.id, real.index, real.container)
        let logs = real.root + "/Records/notes/AAAA"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        for n in 1...50 { try Data("log \(n)".utf8).write(to: URL(fileURLWithPath: "\(logs)/\(n).log")) }
        try await container.start()
        await container.localChanges([nil])
        let folder = try RelativePath("Records/notes/AAAA")
        let file = try RelativePath("Records/notes/AAAA/7.log")
        #expect(try index.item(id, file)?.item.size == 5)

        // A file changes without a word to the agent, and the folder's mtime is set.
        try Data("rewritten".utf8).write(to: URL(fileURLWithPath: "\(logs)/7.log"))
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, logs, &times, 0) == 0)
        await container.localChanges([], folders: [folder])
        #expect(try index.item(id, folder)?.item.mtime == 1_700_000_000 * 1_000_000_000)
        #expect(try index.item(id, file)?.item.size == 5, "the folder's files were scanned too")

        // Its mode changes: what it holds is looked at again.
        #expect(chmod(logs, 0o700) == 0)
        await container.localChanges([], folders: [folder])
        #expect(try index.item(id, file)?.item.size == 9)
    }
}
