import Foundation
import Testing
import UbiqChunking
import UbiqModel
import UbiqSimulation
import UbiqSync

/// File packages on the simulated disk against the real disk's contract
/// (`FileSystemDisk+Packages`): read whole, staged, swapped in whole, kept as version trees.
extension SimulatedDiskTests {
    static let pkg = PackageRules(extensions: ["pkg"])

    func member(_ path: String, _ kind: ItemKind, size: UInt64 = 0, mtime: Int64, target: String? = nil) -> PackageMember {
        PackageMember(path: p(path), kind: kind, size: size, mtime: mtime, symlinkTarget: target)
    }

    @Test func aPackageIsScannedWholeAsOneEntry() throws {
        let disk = try makeDisk(packages: Self.pkg)
        try disk.clientMakeFolder(p("Documents/R.pkg/Data"))
        try disk.clientWrite(p("Documents/R.pkg/Data/one.bin"), b("one"))
        try disk.clientWrite(p("Documents/R.pkg/Index.xml"), b("index"))
        try disk.clientMakeSymlink(p("Documents/R.pkg/current"), target: "Index.xml")
        try disk.clientMakeSymlink(p("Documents/R.pkg/out"), target: "../../a.txt")
        try disk.clientWrite(p("Documents/a.txt"), b("a"))

        let first = try scan(disk)
        #expect(first.seen == Set(["Documents", "Documents/a.txt", "Documents/R.pkg"].map(p)))
        let entry = try #require(entries(first)[p("Documents/R.pkg")])
        #expect(entry.kind == .package && entry.size == 8 && first.filesHashed == 3)
        // The link leading out is left out; files' chunks run end to end in member order.
        #expect(entry.members.map(\.path.rawValue) == ["Data", "Data/one.bin", "Index.xml", "current"])
        #expect(entry.chunks == [ChunkRef(offset: 0, size: 3, hash: ChunkHasher.hash(b("one"))),
                                 ChunkRef(offset: 3, size: 5, hash: ChunkHasher.hash(b("index")))])
        guard case .folder(let mtime, _) = disk.snapshot()[p("Documents/R.pkg")] else { throw PackageTestFailure() }
        #expect(entry.mtime == mtime)
        let read = try disk.readPackage(p("Documents/R.pkg"), previous: nil)
        #expect(read.stat == entry.stat && read.content.members == entry.members)

        // A path inside stands for the package; an unchanged package hashes nothing.
        #expect(try scan(disk, under: "Documents/R.pkg/Data/one.bin").seen == [p("Documents/R.pkg")])
        let recorded = [p("Documents/R.pkg"): read.content]
        let unchanged = try scan(disk, baseline: baseline(first), packages: recorded)
        #expect(unchanged.changed.isEmpty && unchanged.filesHashed == 0)

        // Anything inside changes the fingerprint, and only a changed file is hashed again.
        try disk.clientAppend(p("Documents/R.pkg/Data/one.bin"), b("!"))
        let later = try scan(disk, baseline: baseline(first), packages: recorded)
        #expect(later.filesHashed == 1 && entries(later)[p("Documents/R.pkg")]?.size == 9)
        #expect(disk.folderEntry(p("Documents/R.pkg")) == nil)
    }

    @Test func aStagedPackageIsSwappedInWholeAndKeptAsATree() throws {
        let disk = try makeDisk(packages: Self.pkg)
        let path = p("Documents/R.pkg")
        try disk.clientMakeFolder(p("Documents/R.pkg/Data"))
        // Written in place and never synced: sharing it must still make it durable.
        try disk.clientWrite(p("Documents/R.pkg/Data/one.bin"), b("one"))
        try disk.clientWrite(p("Documents/R.pkg/Index.xml"), b("old index"), fsync: true)
        let stamp = try #require(try disk.packageStamp(path))
        #expect(try disk.packageStamp(p("Documents/none.pkg")) == nil)
        #expect(try disk.packageStamp(p("Documents/R.pkg/Index.xml")) == nil)

        // Shared as it is: the engine shares only a file whose metadata is the member's.
        let shared = try #require(try disk.readPackage(path, previous: nil).content.members.first { $0.path == p("Data/one.bin") })
        func stageNewVersion(linkable: Bool = true) throws -> (any StagedPackage, [PackageMember]) {
            let members = [member("Data", .directory, mtime: 5), shared,
                           member("Index.xml", .file, size: 9, mtime: 7), member("current", .symlink, mtime: 8, target: "Index.xml")]
            let staged = try disk.stagePackage()
            try staged.addFolder(members[0])
            try staged.addFile(members[1], sharing: p("Documents/R.pkg/Data/one.bin"), linkable: linkable)
            try staged.addFile(members[2], from: try self.staged(disk, "new index"))
            try staged.addLink(members[3])
            try staged.finishFolders(members, package: member("R.pkg", .directory, mtime: 9))
            return (staged, members)
        }

        // A hard link to a file changes the package's fingerprint, not its stamp.
        let before = try disk.readPackage(path, previous: nil).stat
        let (staged, members) = try stageNewVersion()
        #expect(try disk.packageStamp(path) == stamp)
        #expect(try disk.readPackage(path, previous: nil).stat != before)
        #expect(try disk.packageFingerprint(path) == disk.readPackage(path, previous: nil).stat)
        #expect(disk.contents(of: p("Documents/R.pkg/Index.xml")) == b("old index") && disk.temporaryFiles().count == 1)
        #expect(code { try disk.commitPackage(staged, to: path, expected: nil, keepReplacedAs: nil) } == .alreadyExists)
        #expect(disk.temporaryFiles().isEmpty && disk.contents(of: p("Documents/R.pkg/Index.xml")) == b("old index"))

        let (again, _) = try stageNewVersion()
        try disk.clientSetMtime(p("Documents/R.pkg/Index.xml"), 1)
        #expect(code { try disk.commitPackage(again, to: path, expected: stamp, keepReplacedAs: nil) } == .alreadyExists)
        let (third, _) = try stageNewVersion(linkable: false)
        let old = try disk.readPackage(path, previous: nil).content
        try disk.commitPackage(third, to: path, expected: try disk.packageStamp(path), keepReplacedAs: "h-old")
        #expect(code { try disk.commitPackage(third, to: path, expected: nil, keepReplacedAs: nil) } == .io)
        // The tree it replaced is in the history, sharing no file with the new one.
        #expect(disk.readStoredPackage("h-old", inHistory: true)?.content == old)
        #expect(try disk.historyNames() == ["h-old"])
        #expect(try disk.read(.history("h-old/Index.xml"), offset: 0, size: 9) == Data(b("old index")))
        let placed = try disk.readPackage(path, previous: nil).content
        #expect(placed.members == members && disk.temporaryFiles().isEmpty)
        #expect(disk.contents(of: p("Documents/R.pkg/Index.xml")) == b("new index"))

        // A crash after the swap leaves the new version whole; a staging is gone.
        _ = try stageNewVersion()
        disk.crash()
        try disk.prepare()
        #expect(try disk.readPackage(path, previous: nil).content == placed)
        #expect(disk.temporaryFiles().isEmpty)

        // A package's conflict version: a tree in `.ubiq/versions/`, read by its inner paths.
        let (version, _) = try stageNewVersion()
        try disk.commitPackageVersion(version, of: path, id: "A-1")
        let name = try disk.versionName(of: path, id: "A-1")
        #expect(try disk.storedVersionIDs(of: path) == ["A-1"])
        #expect(try disk.storedVersionNames().map(\.name) == [name])
        #expect(try disk.read(.version(name + "/Data/one.bin"), offset: 0, size: 3) == Data(b("one")))
        #expect(code { _ = try disk.read(.version(name + "/current"), offset: 0, size: 1) } == .io)
        #expect(code { _ = try disk.read(.version(name + "/../x"), offset: 0, size: 1) } == .escapesContainer)
        #expect(code { _ = try disk.read(.version(name + "/none"), offset: 0, size: 1) } == .notFound)
        #expect(disk.readStoredPackage(name)?.content == placed && disk.storedVersions().isEmpty)
        #expect(disk.storedPackageVersions()[name]?.keys.sorted().map(\.rawValue) == ["Data", "Data/one.bin", "Index.xml", "current"])
        try disk.removeVersion(of: path, id: "A-1")
        #expect(disk.storedPackageVersions().isEmpty)
        #expect(try disk.storedVersionIDs(of: path).isEmpty)
        #expect(code { _ = try disk.read(.version(name + "/Data/one.bin"), offset: 0, size: 3) } == .notFound)

        // A write in place of the new version, never synced, leaves the kept one as it was.
        try disk.clientWrite(p("Documents/R.pkg/Data/one.bin"), b("two"))
        #expect(disk.readStoredPackage("h-old", inHistory: true)?.content == old)

        // Removed whole, and only as it was stamped; a tree kept is made durable first.
        #expect(code { try disk.removePackage(path, expected: stamp, keepAs: nil) } == .alreadyExists)
        let last = try disk.readPackage(path, previous: nil).content
        try disk.removePackage(path, expected: try #require(try disk.packageStamp(path)), keepAs: "h-gone")
        disk.crash()
        try disk.prepare()
        #expect(disk.readStoredPackage("h-gone", inHistory: true)?.content == last)
        try disk.removeHistory(named: "h-gone")
        try disk.removeHistory(named: "h-old")
        #expect(try disk.historyNames().isEmpty && disk.keptVersions().isEmpty)
        #expect(disk.snapshot().keys.allSatisfy { !$0.isInside(path) })
        #expect(code { _ = try disk.readPackage(path, previous: nil) } == .notFound)
    }
}

private struct PackageTestFailure: Error {}
