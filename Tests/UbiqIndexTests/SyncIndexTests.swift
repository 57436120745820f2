import Foundation
import GRDB
import Testing
import UbiqIndex
import UbiqModel
import UbiqTestSupport

@Suite struct SyncIndexTests {
    let dir: TempDirectory
    let index: SyncIndex
    let container = try! ContainerID("TEAMID.com.example.notes")
    let me = DeviceID("AAAA")

    init() throws {
        dir = try TempDirectory()
        index = try SyncIndex(path: dir.appending("index.sqlite"))
    }

    func file(_ path: String, byte: UInt8, version: [DeviceID: UInt64]) -> Item {
        let hash = ChunkHash(bytes: [UInt8](repeating: byte, count: 32))!
        return Item(path: try! RelativePath(path), kind: .file, size: 100, mtime: 1,
                    chunks: [ChunkRef(offset: 0, size: 60, hash: hash), ChunkRef(offset: 60, size: 40, hash: hash)],
                    version: VersionVector(version), modifiedBy: me)
    }

    @Test func itemsRoundTripWithSequencesAndChunks() throws {
        let item = file("Documents/a.txt", byte: 7, version: [me: 1])
        let stat = FileStat(size: 100, mtimeNs: 1, ctimeNs: 2, inode: 3)
        #expect(try index.commit(container, [ItemWrite(item: item, stat: stat)]) == 1)
        let stored = try #require(try index.item(container, item.path))
        #expect(stored.item == item)
        #expect(stored.stat == stat)
        #expect(stored.sequence == 1)
        let locations = try index.locations(of: item.chunks[0].hash)
        #expect(locations.count == 2)
        #expect(locations.contains { $0.offset == 60 && $0.size == 40 && $0.file == .item(item.path) })
    }

    @Test func everyWriteGetsTheNextSequence() throws {
        try index.commit(container, [ItemWrite(item: file("a", byte: 1, version: [me: 1]), stat: nil),
                                     ItemWrite(item: file("b", byte: 2, version: [me: 1]), stat: nil)])
        try index.commit(container, [ItemWrite(item: file("a", byte: 3, version: [me: 2]), stat: nil)])
        let after1 = try index.items(container, after: 1, limit: 10).map(\.item.path.rawValue)
        #expect(after1 == ["b", "a"])
        #expect(try index.containerState(container).sequence == 3)
    }

    @Test func deletedItemsDropTheirChunks() throws {
        var item = file("a", byte: 1, version: [me: 1])
        try index.commit(container, [ItemWrite(item: item, stat: nil)])
        item.deleted = true
        item.chunks = []
        item.size = 0
        try index.commit(container, [ItemWrite(item: item, stat: nil)])
        #expect(try index.locations(of: ChunkHash(bytes: [UInt8](repeating: 1, count: 32))!).isEmpty)
    }

    /// A new version keeps the chunk rows of what it shares with the old one; afterwards the
    /// chunk table lists exactly the new chunks, at their new offsets, duplicates included.
    @Test func chunkRowsFollowEachNewVersionExactly() throws {
        func hash(_ byte: UInt8) -> ChunkHash { ChunkHash(bytes: [UInt8](repeating: byte, count: 32))! }
        func places(_ byte: UInt8) throws -> [UInt64] { try index.locations(of: hash(byte)).map(\.offset).sorted() }
        var item = file("Documents/a.bin", byte: 1, version: [me: 1])
        item.chunks = [ChunkRef(offset: 0, size: 60, hash: hash(1)), ChunkRef(offset: 60, size: 40, hash: hash(2)),
                       ChunkRef(offset: 100, size: 60, hash: hash(1)), ChunkRef(offset: 160, size: 5, hash: hash(3))]
        item.size = 165
        try index.commit(container, [ItemWrite(item: item, stat: nil)])
        #expect(try places(1) == [0, 100] && places(2) == [60] && places(3) == [160])

        // Something inserted at the start, one copy of a chunk gone, a chunk changed size.
        item.chunks = [ChunkRef(offset: 0, size: 10, hash: hash(4)), ChunkRef(offset: 10, size: 60, hash: hash(1)),
                       ChunkRef(offset: 70, size: 40, hash: hash(2)), ChunkRef(offset: 110, size: 7, hash: hash(3))]
        item.size = 117
        item.version = VersionVector([me: 2])
        let stat = FileStat(size: 117, mtimeNs: 1, ctimeNs: 2, inode: 3)
        try index.commit(container, [ItemWrite(item: item, stat: stat)])
        #expect(try places(4) == [0] && places(1) == [10] && places(2) == [70] && places(3) == [110])
        #expect(try index.locations(of: hash(3)).map(\.size) == [7])
        #expect(try index.holds(container, path: item.path, run: item.chunks, stat: stat))

        item.deleted = true
        item.chunks = []
        item.size = 0
        item.version = VersionVector([me: 3])
        try index.commit(container, [ItemWrite(item: item, stat: nil)])
        #expect(try (1...4).allSatisfy { try places(UInt8($0)).isEmpty })
    }

    @Test func needsAndPeerStateAreStoredTogether() throws {
        let peer = DeviceID("BBBB")
        let need = file("Documents/b.txt", byte: 9, version: [peer: 4])
        try index.recordRemoteUpdate(container, peer: peer, state: PeerIndexState(indexID: 42, maxSequence: 17),
                                     needs: [need], merges: [])
        #expect(try index.needs(container) == [need])
        #expect(try index.peerState(peer, container) == PeerIndexState(indexID: 42, maxSequence: 17))
        try index.commit(container, [ItemWrite(item: need, stat: nil, settlesNeed: true)])
        #expect(try index.needs(container).isEmpty)
    }

    /// A run of chunks is vouched for only with the stat the scan recorded and the chunks at
    /// those very offsets.
    @Test func holdsRequiresTheRecordedStatAndOffsets() throws {
        let item = file("Documents/a.txt", byte: 7, version: [me: 1])
        let stat = FileStat(size: 100, mtimeNs: 1, ctimeNs: 2, inode: 3)
        try index.commit(container, [ItemWrite(item: item, stat: stat)])
        #expect(try index.holds(container, path: item.path, run: item.chunks, stat: stat))
        #expect(try index.holds(container, path: item.path, run: [item.chunks[1]], stat: stat))
        var touched = stat
        touched.ctimeNs = 5
        #expect(try !index.holds(container, path: item.path, run: item.chunks, stat: touched))
        let shifted = ChunkRef(offset: 10, size: 40, hash: item.chunks[1].hash)
        #expect(try !index.holds(container, path: item.path, run: [shifted], stat: stat))
        #expect(try !index.holds(container, path: try RelativePath("Documents/other.txt"), run: item.chunks, stat: stat))
    }

    @Test func statisticsCountPendingNeedsAndTheirBytes() throws {
        let peer = DeviceID("BBBB")
        var gone = file("Documents/gone.txt", byte: 2, version: [peer: 2])
        gone.deleted = true
        try index.recordRemoteUpdate(container, peer: peer, state: PeerIndexState(indexID: 1, maxSequence: 2),
                                     needs: [file("Documents/b.txt", byte: 9, version: [peer: 1]), gone], merges: [])
        let stats = try index.statistics(container)
        #expect(stats.needItems == 2 && stats.needBytes == 100)
    }

    /// An index written before needs had size columns gets them filled in when it is opened.
    @Test func theNeedSizeMigrationFillsExistingNeeds() throws {
        let peer = DeviceID("BBBB")
        try index.recordRemoteUpdate(container, peer: peer, state: PeerIndexState(indexID: 1, maxSequence: 1),
                                     needs: [file("Documents/b.txt", byte: 9, version: [peer: 1])], merges: [])
        let path = dir.appending("index.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "ALTER TABLE need DROP COLUMN size; ALTER TABLE need DROP COLUMN deleted")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v5:%'")
        }
        try queue.close()
        let reopened = try SyncIndex(path: path)
        #expect(try reopened.statistics(container).needBytes == 100)
    }

    @Test func baselinesOfSeveralRootsComeBackPerRootAndStatsUpdateTogether() throws {
        let stat = FileStat(size: 100, mtimeNs: 1, ctimeNs: 2, inode: 3)
        try index.commit(container, ["a/x", "a/y", "ab", "b/z"].map { ItemWrite(item: file($0, byte: 1, version: [me: 1]), stat: stat) })
        let roots = try [RelativePath("a"), RelativePath("b/z"), nil, RelativePath("c")]
        let baselines = try index.baselines(container, under: roots)
        #expect(baselines.map { $0.paths.map(\.rawValue) } == [["a/x", "a/y"], ["b/z"], ["a/x", "a/y", "ab", "b/z"], []])
        let newer = FileStat(size: 100, mtimeNs: 5, ctimeNs: 6, inode: 3)
        try index.updateStats(container, [(try RelativePath("a/x"), newer), (try RelativePath("b/z"), newer)])
        let after = try index.baselines(container, under: [nil])[0]
        #expect(after.filter { $0.1.stat == newer }.map(\.0.rawValue) == ["a/x", "b/z"])
        #expect(try index.items(container, at: []).isEmpty)
    }

    @Test func childrenListsOneLevel() throws {
        try index.commit(container, ["Documents/a", "Documents/sub/b", "Documents/c", "Data/x"].map {
            ItemWrite(item: file($0, byte: 1, version: [me: 1]), stat: nil)
        })
        let children = try index.children(container, of: try RelativePath("Documents")).map(\.item.path.rawValue)
        #expect(children == ["Documents/a", "Documents/c"])
        let under = try index.items(container, under: try RelativePath("Documents")).map(\.item.path.rawValue)
        #expect(under == ["Documents/a", "Documents/c", "Documents/sub/b"])
    }

    @Test func survivesReopen() throws {
        let item = file("a", byte: 1, version: [me: 1])
        try index.commit(container, [ItemWrite(item: item, stat: nil)])
        let state = try index.containerState(container)
        let reopened = try SyncIndex(path: dir.appending("index.sqlite"))
        #expect(try reopened.containerState(container) == state)
        #expect(try reopened.item(container, item.path)?.item == item)
    }
}

extension SyncIndexTests {
    @Test func findsPathsThatDifferOnlyInCase() throws {
        try index.commit(container, [ItemWrite(item: file("Documents/Readme.txt", byte: 1, version: [me: 1]), stat: nil)])
        #expect(try index.caseTwin(container, of: try RelativePath("Documents/README.txt"))?.rawValue == "Documents/Readme.txt")
        #expect(try index.caseTwin(container, of: try RelativePath("Documents/Readme.txt")) == nil)
        #expect(try index.caseTwin(container, of: try RelativePath("Documents/Other.txt")) == nil)
    }

    /// A group of files about to be applied asks for case twins and holders once for all.
    @Test func caseTwinsAndHoldersAreFoundForManyPathsAtOnce() throws {
        try index.commit(container, ["Documents/Readme.txt", "Documents/b"].map { ItemWrite(item: file($0, byte: 1, version: [me: 1]), stat: nil) })
        let paths = try ["Documents/README.txt", "Documents/Readme.txt", "Documents/B", "Documents/new"].map(RelativePath.init)
        let twins = try index.caseTwins(container, of: paths)
        #expect(twins.mapValues(\.rawValue) == [paths[0]: "Documents/Readme.txt", paths[2]: "Documents/b"])

        let peer = DeviceID("BBBB")
        let (a, b) = (try RelativePath("Documents/a"), try RelativePath("Documents/b"))
        try index.recordRemoteUpdate(container, peer: peer, state: PeerIndexState(indexID: 1, maxSequence: 2), needs: [], merges: [],
                                     held: [(a, VersionVector([peer: 2])), (b, VersionVector([peer: 1]))])
        let (one, two) = (VersionVector([peer: 1]), VersionVector([peer: 2]))
        let holders = try index.holders(container, of: [a: two, b: two, try RelativePath("Documents/c"): one])
        #expect(holders == [a: [peer]])
        #expect(try index.holders(container, b, version: one) == [peer])
    }
}

extension SyncIndexTests {
    /// Applying an older need must not drop a newer one that arrived meanwhile.
    @Test func settlingAnOlderNeedKeepsTheNewerOne() throws {
        let peer = DeviceID("BBBB")
        let older = file("Documents/n.txt", byte: 1, version: [peer: 1])
        let newer = file("Documents/n.txt", byte: 2, version: [peer: 2])
        try index.recordRemoteUpdate(container, peer: peer, state: PeerIndexState(indexID: 1, maxSequence: 1), needs: [older], merges: [])
        try index.recordRemoteUpdate(container, peer: peer, state: PeerIndexState(indexID: 1, maxSequence: 2), needs: [newer], merges: [])
        try index.commit(container, [ItemWrite(item: older, stat: nil, settlesNeed: true)])
        #expect(try index.needs(container) == [newer])
        try index.removeNeed(container, older.path, upTo: older.version)
        #expect(try index.needs(container) == [newer])
        try index.commit(container, [ItemWrite(item: newer, stat: nil, settlesNeed: true)])
        #expect(try index.needs(container).isEmpty)
    }
}

extension SyncIndexTests {
    @Test func theIndexIsReadableByItsOwnerOnly() throws {
        try index.commit(container, [ItemWrite(item: file("a", byte: 1, version: [me: 1]), stat: nil)])
        for suffix in ["", "-wal", "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: dir.appending("index.sqlite" + suffix))
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "index.sqlite\(suffix)")
        }
    }
}

/// Status counters are kept between writes, never across one.
@Suite struct StatisticsFreshnessTests {
    @Test func countersFollowEveryWrite() throws {
        let dir = try TempDirectory(prefix: "ubiq-stats")
        let index = try SyncIndex(path: dir.appending("index.sqlite"))
        let container = try ContainerID("TEAMID.com.example.stats")
        let me = DeviceID("AAAA"), peer = DeviceID("BBBB")
        func file(_ path: String, _ version: [DeviceID: UInt64]) -> Item {
            Item(path: try! RelativePath(path), kind: .file, size: 10, mtime: 1,
                 chunks: [ChunkRef(offset: 0, size: 10, hash: ChunkHash(bytes: [UInt8](repeating: 3, count: 32))!)],
                 version: VersionVector(version), modifiedBy: me)
        }
        #expect(try index.statistics(container).files == 0)
        try index.commit(container, [ItemWrite(item: file("Documents/a", [me: 1]), stat: nil)])
        #expect(try index.statistics(container).files == 1)
        #expect(try index.statistics(container).files == 1, "asked again with no write between")
        try index.recordRemoteUpdate(container, peer: peer, state: PeerIndexState(indexID: 1, maxSequence: 1),
                                     needs: [file("Documents/b", [peer: 1])], merges: [])
        #expect(try index.statistics(container).needItems == 1)
        try index.removeNeed(container, try RelativePath("Documents/b"), upTo: VersionVector([peer: 1]))
        #expect(try index.statistics(container).needItems == 0)
    }
}
