import Foundation
import Testing
import UbiqModel
import UbiqWire

@Suite struct ItemMappingTests {
    let author = DeviceID("AUTHOR")

    func file(_ path: String = "Documents/a.txt") -> Item {
        let hash = ChunkHash(bytes: [UInt8](repeating: 3, count: 32))!
        let conflict = ConflictVersion(id: "OTHER-1", kind: .file, size: 5, mtime: 9, executable: false, symlinkTarget: nil,
                                       chunks: [ChunkRef(offset: 0, size: 5, hash: hash)], version: VersionVector([DeviceID("OTHER"): 1]),
                                       modifiedBy: DeviceID("OTHER"))
        return Item(path: try! RelativePath(path), kind: .file, size: 30, mtime: 123_456_789, executable: true,
                    chunks: [ChunkRef(offset: 0, size: 10, hash: hash), ChunkRef(offset: 10, size: 20, hash: hash)],
                    version: VersionVector([author: 2]), modifiedBy: author, conflicts: [conflict])
    }

    @Test func itemsRoundTrip() throws {
        let item = file()
        let info = ItemMapping.fileInfo(item, sequence: 7)
        #expect(info.sequence == 7)
        #expect(try ItemMapping.item(try Ubiq_Wire_FileInfo(serializedBytes: info.serializedBytes() as [UInt8])) == item)
    }

    @Test func permissionsTravelAndAPeerOfBeforeIsHeardByItsExecutableBit() throws {
        var item = file()
        item.permissions = Permissions(mode: 0o600, kind: .file)
        item.conflicts[0].permissions = Permissions(mode: 0o640, kind: .file)
        var info = ItemMapping.fileInfo(item, sequence: 1)
        #expect(info.permissions == 0o600 && !info.executable)
        #expect(try ItemMapping.item(info) == item)
        info.clearPermissions()
        info.conflicts[0].clearPermissions()
        info.executable = true
        let heard = try ItemMapping.item(info)
        #expect(heard.permissions.description == "0755" && heard.conflicts[0].permissions.description == "0644")
        // Bits that must not travel are dropped on the way in.
        info.permissions = 0o4777
        #expect(try ItemMapping.item(info).permissions.description == "0777")
    }

    /// A change of mtime alone travels with the counter of the change that made the content;
    /// a counter outside the version is refused.
    @Test func aContentCounterTravelsAndOneOutsideTheVersionIsRefused() throws {
        var item = file().changedMetadata(by: author)
        item.mtime += 5
        var info = ItemMapping.fileInfo(item, sequence: 1)
        #expect(info.hasContentCounter && info.contentCounter == 2)
        #expect(try ItemMapping.item(info) == item)
        #expect(!ItemMapping.fileInfo(file(), sequence: 1).hasContentCounter)
        for counter: UInt64 in [0, 4] {
            info.contentCounter = counter
            #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .invalidVersion }
        }
    }

    @Test(arguments: ["../x", "/etc/passwd", ".ubiq/tmp/x", "a/../../b", "Documents/x.nosync/y", ""])
    func refusesPaths(_ path: String) {
        var info = ItemMapping.fileInfo(file(), sequence: 1)
        info.path = path
        #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .invalidPath }
    }

    @Test func refusesChunkListsThatDoNotAddUp() {
        var info = ItemMapping.fileInfo(file(), sequence: 1)
        info.size = 1 << 40
        #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .invalidChunks }
        info = ItemMapping.fileInfo(file(), sequence: 1)
        info.blocks[1].offset = 99
        #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .invalidChunks }
        info = ItemMapping.fileInfo(file(), sequence: 1)
        info.blocks[0].hash = Data([1, 2, 3])
        #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .invalidChunks }
    }

    @Test func refusesSymlinksOutOfTheContainer() {
        var info = ItemMapping.fileInfo(file("Documents/link"), sequence: 1)
        info.kind = .symlink
        info.blocks = []
        info.size = 0
        info.symlinkTarget = "../../outside"
        #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .invalidPath }
        info.symlinkTarget = "../Data/inside"
        #expect((try? ItemMapping.item(info))?.symlinkTarget == "../Data/inside")
    }

    @Test func refusesVersionsWithoutAuthors() {
        var info = ItemMapping.fileInfo(file(), sequence: 1)
        info.version = []
        #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .invalidVersion }
        info = ItemMapping.fileInfo(file(), sequence: 1)
        info.modifiedBy = ""
        #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .invalidVersion }
    }

    /// A zero counter counts as absent, so `[AUTHOR: 0]` is no version at all: accepted, it
    /// would be announced on without one and refused by every other peer (found by fuzzing:
    /// Fuzz/Corpus/peer-frames/regress-zero-counter).
    @Test func refusesZeroCounters() {
        var info = ItemMapping.fileInfo(file(), sequence: 1)
        info.version[0].value = 0
        #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .invalidVersion }
        info = ItemMapping.fileInfo(file(), sequence: 1)
        info.conflicts[0].version.append(.with { $0.device = "THIRD"; $0.value = 0 })
        #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .invalidVersion }
    }

    @Test func refusesBadConflictVersionIDs() {
        var info = ItemMapping.fileInfo(file(), sequence: 1)
        info.conflicts[0].id = "../../x"
        #expect { try ItemMapping.item(info) } throws: { ($0 as? WireError)?.code == .malformed }
    }
}
