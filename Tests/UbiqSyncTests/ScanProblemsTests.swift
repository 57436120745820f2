import Foundation
import Testing
import UbiqFileSystem
import UbiqIndex
import UbiqModel
import UbiqSync
import UbiqTestSupport

/// A problem a scan found by reading a file stays listed while the file is as it was: the
/// next scan of the path does not read it again (its stat is the one recorded), and dropped
/// the problem it did not find again (seen in the live attributes test, under load: a burst
/// of `setxattr` events made two scans, and the second emptied the status).
struct ScanProblemsTests {
    @Test(.enabled(if: getuid() == 0, "needs root to mount a tmpfs, which holds more than 64 KiB of attributes"))
    func attributesPastTheLimitStayListedAcrossScansThatDoNotReadTheFileAgain() async throws {
        let real = try RealContainer(prefix: "ubiq-scan-problems")
        let (root, id, index, container) = (real.root, real.id, real.index, real.container)
        try #require(try exitStatus(of: ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", root]) == 0, "cannot mount a tmpfs")
        defer { _ = try? exitStatus(of: ["umount", root]) }
        try FileManager.default.createDirectory(atPath: root + "/Documents", withIntermediateDirectories: true)
        try await container.start()
        let file = try RelativePath("Documents/huge.bin")
        try Data("bytes".utf8).write(to: URL(fileURLWithPath: real.absolute(file)))
        for part in 0..<40 { #expect(setRawAttribute(real.absolute(file), "user.part\(part)", [UInt8](repeating: 1, count: 2000)) == 0) }
        await container.localChanges([nil])
        #expect(container.scanProblems().map(\.path) == [file.rawValue])

        // The file as it was: scanned again by its path and by the whole container.
        await container.localChanges([file])
        #expect(container.scanProblems().map(\.path) == [file.rawValue])
        await container.localChanges([nil])
        #expect(container.scanProblems().map(\.path) == [file.rawValue])

        // Under the limit again: read again, and the problem goes.
        try ExtendedAttributes([.init(name: "user.part0", value: [2])]).write(toPath: real.absolute(file))
        await container.localChanges([file])
        #expect(container.scanProblems().isEmpty)
        #expect(try index.item(id, file)?.item.attributes["user.part0"] == [2])
    }
}
