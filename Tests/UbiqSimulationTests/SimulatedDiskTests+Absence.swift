import Testing
import UbiqModel
import UbiqSimulation
import UbiqSync

/// The simulated disk going away (issue 40) shows the engine what a real one would, and
/// tells what the engine left where it was.
extension SimulatedDiskTests {
    @Test func aDiskAwayShowsItsAbsenceRefusesClientsAndComesBackAsItWent() throws {
        let disk = try makeDisk()
        try disk.clientWrite(p("Documents/a.txt"), b("kept"), fsync: true)
        let marker = FolderMarker.new(container: "TEAMID.com.example.notes", account: "acct", random: { 7 })
        try disk.writeMarker(marker)

        disk.goAway(.emptyMountPoint)
        #expect(disk.absence == .emptyMountPoint)
        #expect(disk.probeFolder() == FolderProbe(root: .folder(device: 2, inode: 1), marker: .absent, hasEntries: false))
        #expect(try scan(disk).seen.isEmpty)
        #expect(code { try disk.clientWrite(p("Documents/b.txt"), b("x")) } == .io)
        #expect(code { _ = try disk.stage() } == .notFound)
        // What the engine makes in the mount point is told when the disk is back.
        _ = try disk.makeDirectory(p("Documents"), permissions: Permissions(mode: 0o755, kind: .directory), attributes: .empty, mtime: nil)
        #expect(disk.comeBack() == ["Documents"])
        #expect(disk.absence == nil && disk.contents(of: p("Documents/a.txt")) == b("kept"))
        #expect(disk.probeFolder().marker == .found(marker))

        disk.goAway(.folderGone)
        #expect(disk.probeFolder().root == .missing)
        #expect(code { _ = try scan(disk) } == .notFound)
        #expect(disk.comeBack().isEmpty)

        disk.goAway(.markerMissing)
        #expect(disk.probeFolder().marker == .absent && disk.probeFolder().hasEntries)
        try disk.clientWrite(p("Documents/c.txt"), b("written meanwhile"))
        #expect(disk.comeBack().isEmpty)
        #expect(disk.probeFolder().marker == .found(marker) && disk.contents(of: p("Documents/c.txt")) == b("written meanwhile"))
    }
}
