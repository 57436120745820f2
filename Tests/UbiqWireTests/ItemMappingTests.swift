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

    /// A peer hears which content the sender lacks for files and packages alike: a package
    /// listed as held whose members are gone (its deletion held, or being fetched back) made a
    /// restore elsewhere wait for ever on a device that did not have it (simulator seed
    /// 291823519). A folder, a symlink and a deletion have no content to lack.
    @Test func absenceTravelsForFilesAndPackagesOnly() throws {
        var package = file("Documents/Sketch.pkg")
        package.kind = .package
        package.chunks = []
        package.size = 0
        package.conflicts = []
        #expect(ItemMapping.fileInfo(file(), sequence: 1, absent: true).absent)
        #expect(ItemMapping.fileInfo(package, sequence: 1, absent: true).absent)
        #expect(try ItemMapping.announced(ItemMapping.fileInfo(package, sequence: 1, absent: true)).absent)
        #expect(!ItemMapping.fileInfo(package, sequence: 1, absent: false).absent)
        var folder = file("Documents/x")
        folder.kind = .directory
        folder.chunks = []
        folder.size = 0
        var deleted = file()
        deleted.deleted = true
        #expect(!ItemMapping.fileInfo(folder, sequence: 1, absent: true).absent)
        #expect(!ItemMapping.fileInfo(deleted, sequence: 1, absent: true).absent)
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

    @Test func attributesTravelWithFilesFoldersAndConflictVersions() throws {
        var item = file()
        item.attributes = try ExtendedAttributes([.init(name: "user.xdg.tags", value: Array("a,b".utf8)), .init(name: "user.bin", value: [0, 255])])
        item.conflicts[0].attributes = try ExtendedAttributes([.init(name: "user.old", value: [1])])
        let info = ItemMapping.fileInfo(item, sequence: 1)
        #expect(info.attributes.map(\.name) == ["user.bin", "user.xdg.tags"])
        #expect(try ItemMapping.item(try Ubiq_Wire_FileInfo(serializedBytes: info.serializedBytes() as [UInt8])) == item)
        var folder = Item(path: try RelativePath("Documents/album"), kind: .directory, attributes: item.attributes,
                          version: VersionVector([author: 1]), modifiedBy: author)
        #expect(try ItemMapping.item(ItemMapping.fileInfo(folder, sequence: 1)) == folder)
        folder.deleted = true
        #expect(ItemMapping.fileInfo(folder, sequence: 1).attributes.isEmpty, "a deletion sends none")
    }

    @Test func attributesAgainstTheRulesAreRefused() throws {
        func refused(_ change: (inout Ubiq_Wire_FileInfo) -> Void) -> Bool {
            var info = ItemMapping.fileInfo(file(), sequence: 1)
            change(&info)
            do { _ = try ItemMapping.item(info) } catch { return error.code == .malformed }
            return false
        }
        func attribute(_ name: String, _ value: Int = 1) -> Ubiq_Wire_ExtendedAttribute {
            .with { $0.name = name; $0.value = Data(count: value) }
        }
        #expect(refused { $0.attributes = [attribute("security.selinux")] })
        #expect(refused { $0.attributes = [attribute("trusted.x")] })
        #expect(refused { $0.attributes = [attribute("user.a"), attribute("user.a")] })
        #expect(refused { $0.attributes = [attribute("user.big", ExtendedAttributes.limit)] })
        #expect(refused { $0.attributes = (0..<40).map { attribute("user.n\($0)", 2000) } })
        #expect(refused { $0.deleted = true; $0.blocks = []; $0.size = 0; $0.attributes = [attribute("user.a")] })
        #expect(refused { $0.conflicts[0].attributes = [attribute("system.posix_acl_access")] })
        #expect(!refused { $0.attributes = [attribute("user.big", ExtendedAttributes.limit - 8)] })
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
