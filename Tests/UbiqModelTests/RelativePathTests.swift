import Testing
import UbiqModel

@Suite struct RelativePathTests {
    @Test(arguments: ["../x", "a/../../b", "/etc/passwd", ".ubiq/tmp/x", "a//b", "./a", "a/.", "", "a\u{0}b"])
    func refusesPathsThatEscapeOrHide(_ raw: String) {
        #expect(throws: ModelError.self) { try RelativePath(raw) }
    }

    @Test func acceptsOrdinaryPaths() throws {
        let path = try RelativePath("Documents/Notes/a b.txt")
        #expect(path.name == "a b.txt")
        #expect(path.parent?.rawValue == "Documents/Notes")
        #expect(path.isSyncable)
        #expect(try RelativePath("x/.ubiq").isSyncable)
    }

    @Test func nosyncFoldersAreNotSynced() throws {
        #expect(!(try RelativePath("Documents/cache.nosync/a")).isSyncable)
        #expect(!(try RelativePath("cache.nosync")).isSyncable)
    }

    @Test func symlinkTargetsMustStayInside() {
        #expect(SymlinkTarget.staysInside(linkPath: "Documents/a", target: "b/c"))
        #expect(SymlinkTarget.staysInside(linkPath: "Documents/a", target: "../Data/x"))
        #expect(!SymlinkTarget.staysInside(linkPath: "Documents/a", target: "../../etc"))
        #expect(!SymlinkTarget.staysInside(linkPath: "a", target: "/etc/passwd"))
        #expect(!SymlinkTarget.staysInside(linkPath: "a", target: ".ubiq/tmp"))
    }

    @Test func containerIdentifiers() {
        #expect((try? ContainerID("TEAMID.com.example.notes")) != nil)
        #expect((try? ContainerID("noperiod")) == nil)
        #expect((try? ContainerID("TEAM.*")) == nil)
    }
}
