import Testing
import UbiqModel

@Suite struct KnownVersionTests {
    static let here = DeviceID("HERE")
    static let peerA = DeviceID("PEER-A")
    static let peerB = DeviceID("PEER-B")

    static func entry(_ id: Int64, _ path: String = "Documents/a.txt", author: UInt64, keptAt: Int64, reason: HistoryEntry.Reason = .replaced)
        -> HistoryEntry
    {
        let item = Item(path: try! RelativePath(path), kind: .file, size: author * 10, mtime: Int64(author),
                        version: VersionVector([peerA: author]), modifiedBy: peerA)
        return HistoryEntry(id: id, item: item, name: "", keptAt: keptAt, reason: reason, by: here)
    }

    /// The same version kept on several devices is listed once, with each holder's id, this
    /// device's entry first and the earliest time any of them kept it.
    @Test func theSameVersionOnSeveralDevicesIsOneVersion() {
        let local = [Self.entry(4, author: 2, keptAt: 2_000), Self.entry(3, author: 1, keptAt: 1_000)]
        let peers = [
            PeerHistory(device: Self.peerB, entries: [Self.entry(9, author: 1, keptAt: 900), Self.entry(8, "Documents/b.txt", author: 1, keptAt: 3_000)],
                        since: 0),
            PeerHistory(device: Self.peerA, entries: [Self.entry(5, author: 2, keptAt: 2_100)], since: 0),
        ]
        let merged = KnownVersion.merge(local: local, peers: peers)
        #expect(merged.map(\.path.rawValue) == ["Documents/b.txt", "Documents/a.txt", "Documents/a.txt"])
        #expect(merged[0].localID == nil && merged[0].peers == [Self.peerB: 8])
        #expect(merged[1].localID == 4 && merged[1].peers == [Self.peerA: 5] && merged[1].entry.keptAt == 2_000)
        #expect(merged[2].localID == 3 && merged[2].peers == [Self.peerB: 9] && merged[2].entry.keptAt == 900)
        #expect(merged[2].entry.id == 3, "this device's entry is the one shown")
    }

    /// Versions of one path that differ in version vector, size or time stay apart.
    @Test func differentVersionsStayApart() {
        var other = Self.entry(7, author: 1, keptAt: 1_000)
        other.item.mtime += 1
        let merged = KnownVersion.merge(local: [Self.entry(3, author: 1, keptAt: 1_000)],
                                        peers: [PeerHistory(device: Self.peerA, entries: [other], since: nil)])
        #expect(merged.count == 2 && merged[0].localID == 3 && merged[1].peers == [Self.peerA: 7])
    }
}
