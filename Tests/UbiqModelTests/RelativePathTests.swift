import Testing
import UbiqModel

@Suite struct RelativePathTests {
    @Test(arguments: ["../x", "a/../../b", "/etc/passwd", ".ubiq/tmp/x", ".ubiq", "a//b", "./a", "a/.", "a/..", "a/", "", "a\u{0}b",
                      "a/b\u{0}"])
    func refusesPathsThatEscapeOrHide(_ raw: String) {
        #expect(throws: ModelError.self) { try RelativePath(raw) }
    }

    @Test func acceptsOrdinaryPaths() throws {
        let path = try RelativePath("Documents/Notes/a b.txt")
        #expect(path.name == "a b.txt")
        #expect(path.parent?.rawValue == "Documents/Notes")
        #expect(path.isSyncable)
        #expect(try RelativePath("x/.ubiq").isSyncable)
        // Periods inside names, and names that only begin like the agent's folder.
        for raw in ["...", ".a", "a.", "a/.b/..c", ".ubiqx", ".ubi", "x/.ubiq/y"] {
            #expect(try RelativePath(raw).rawValue == raw)
        }
        #expect(try RelativePath("top").name == "top")
        #expect(try RelativePath("top").parent == nil)
        #expect(try RelativePath("a/b/c").parent?.parent?.rawValue == "a")
    }

    /// Told apart by bytes, as Linux does, and sorted by bytes, as SQLite sorts the index.
    @Test func pathsThatDifferOnlyInNormalizationAreTwo() throws {
        let composed = try RelativePath("Documents/caf\u{E9}"), decomposed = try RelativePath("Documents/cafe\u{301}")
        #expect(composed != decomposed && Set([composed, decomposed]).count == 2)
        #expect(composed.caseFolded == decomposed.caseFolded, "Swift's String == takes the folded forms for one")
        #expect(try RelativePath("Documents/caf\u{E9}/x").isInside(composed) && !(try RelativePath("Documents/cafe\u{301}/x")).isInside(composed))
        #expect(try [RelativePath("b"), RelativePath("\u{E9}"), RelativePath("a"), RelativePath("e\u{301}")].sorted().map(\.rawValue)
                == ["a", "b", "e\u{301}", "\u{E9}"])
    }

    @Test func nosyncFoldersAreNotSynced() throws {
        #expect(!(try RelativePath("Documents/cache.nosync/a")).isSyncable)
        #expect(!(try RelativePath("cache.nosync")).isSyncable)
        #expect(!(try RelativePath("a/b.nosync/c.nosyncx/d")).isSyncable)
        #expect(try RelativePath("a.nosyncx/b.nosync.txt").isSyncable)
        #expect(try RelativePath(".nosyncfile").isSyncable)
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
        #expect((try? ContainerID("T-1.com.my_app")) != nil)
        for bad in ["", ".", "a..b", ".a.b", "a.b.", "é.x", "a.b c", "a.b/c", String(repeating: "a.", count: 128) + "a"] {
            #expect((try? ContainerID(bad)) == nil, "\(bad)")
        }
        #expect((try? ContainerID(String(repeating: "ab.", count: 84) + "abc")) != nil, "255 bytes")
    }
}
