import Foundation
import Testing
import UbiqFileSystem
import UbiqModel

/// The scanner reads a file package as one entry: its inside is never an entry of its own, a
/// path inside one stands for the package, and an unchanged package hashes nothing.
struct ContainerScannerPackageTests {
    let fixture: ContainerFixture
    init() throws { fixture = try ContainerFixture() }

    var scanner: ContainerScanner {
        var scanner = fixture.scanner
        scanner.packages = PackageRules(extensions: ["pages"])
        return scanner
    }

    /// What the index would remember of a scan: stats and package contents.
    struct Recorded: ScanBaseline {
        var stats: [RelativePath: FileStat] = [:]
        var packages: [RelativePath: PackageContent] = [:]
        init(_ result: ScanResult) throws {
            for entry in result.changed {
                stats[entry.path] = entry.stat
                if entry.kind == .package { packages[entry.path] = try PackageContent(members: entry.members, chunks: entry.chunks) }
            }
        }
        func stat(of path: RelativePath) -> FileStat? { stats[path] }
        func package(at path: RelativePath) -> PackageContent? { packages[path] }
    }

    func makePackage() throws {
        try fixture.write("Documents/Report.pages/Index.xml", "index")
        try fixture.write("Documents/Report.pages/Data/one.bin", testBytes(70_000, seed: 1))
        try fixture.write("Documents/Report.pages/Data/two.bin", testBytes(30_000, seed: 2))
        try fixture.symlink("Documents/Report.pages/Current", to: "Data/one.bin")
        try fixture.symlink("Documents/Report.pages/Outside", to: "../../plain.txt")
        try fixture.write("Documents/plain.txt", "plain")
    }

    @Test func aPackageIsOneEntryWithItsMembers() throws {
        try makePackage()
        let result = try scanner.scan(baseline: EmptyScanBaseline())
        #expect(result.seen == Set(["Documents", "Documents/Report.pages", "Documents/plain.txt"].map(path)))
        let package = try #require(result.changed.first { $0.path == path("Documents/Report.pages") })
        #expect(package.kind == .package)
        #expect(package.size == 5 + 70_000 + 30_000)
        #expect(package.members.map(\.path.rawValue) == ["Current", "Data", "Data/one.bin", "Data/two.bin", "Index.xml"])
        #expect(package.mtime == fixture.lstatOf("Documents/Report.pages").map { Int64($0.st_mtim.tv_sec) * 1_000_000_000 + Int64($0.st_mtim.tv_nsec) })
        #expect(try PackageContent(members: package.members, chunks: package.chunks).size == package.size)
        #expect(result.leftOutOfPackages.map(\.path) == ["Documents/Report.pages/Outside"])
        #expect(result.filesHashed == 4)

        // The same package again: nothing changed, nothing hashed.
        let again = try scanner.scan(baseline: try Recorded(result))
        #expect(again.changed.isEmpty && again.filesHashed == 0)
        #expect(again.seen == result.seen)
        // Without the rule it is an ordinary folder.
        let plain = try fixture.scanner.scan(baseline: EmptyScanBaseline())
        #expect(plain.seen.contains(path("Documents/Report.pages/Data/one.bin")))
    }

    @Test func aChangeInsideRescansThePackageAndHashesOnlyTheChangedFile() throws {
        try makePackage()
        let first = try scanner.scan(baseline: EmptyScanBaseline())
        try fixture.write("Documents/Report.pages/Data/two.bin", testBytes(31_000, seed: 3))

        // A watcher's path inside the package stands for the whole package.
        let result = try scanner.scan(under: path("Documents/Report.pages/Data/two.bin"), baseline: try Recorded(first))
        #expect(result.seen == [path("Documents/Report.pages")])
        let package = try #require(result.changed.first)
        #expect(package.kind == .package && package.size == 5 + 70_000 + 31_000)
        #expect(result.filesHashed == 1)
        let single = try scanner.scanSingle(path("Documents/Report.pages/Index.xml"), baseline: try Recorded(first))
        #expect(single.changed.map(\.path) == [path("Documents/Report.pages")])
    }

    @Test func aPackageThatCannotBeReadWholeIsAFailureNeverADeletion() throws {
        try makePackage()
        // A name that is not UTF-8 inside: the package cannot be described, so it is not synced.
        let bad: [UInt8] = Array(fixture.absolute("Documents/Report.pages/Data/").utf8) + [0xFF, 0x41, 0]
        let fd = bad.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
        #expect(fd >= 0)
        close(fd)
        let result = try scanner.scan(baseline: EmptyScanBaseline())
        #expect(result.failures.map(\.path) == [path("Documents/Report.pages")])
        #expect(result.failures.first?.kind == .package)
        #expect(result.failures.first?.error.message.contains("not a UTF-8 name") == true)
        #expect(!result.changed.contains { $0.path == path("Documents/Report.pages") })
        // Failures count as seen where the engine looks (never taken for deleted).
        #expect(result.seen.contains(path("Documents/Report.pages")))
    }
}
