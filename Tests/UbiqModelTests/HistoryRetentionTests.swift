import Testing
import UbiqModel

@Suite struct HistoryRetentionTests {
    static let device = DeviceID("AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD")
    static let minute: Int64 = 60_000

    static func entry(_ id: Int64, _ path: String = "Documents/a.txt", keptAt: Int64, size: UInt64 = 10) -> HistoryEntry {
        let item = Item(path: try! RelativePath(path), kind: .file, size: size, version: VersionVector([device: UInt64(id)]), modifiedBy: device)
        return HistoryEntry(id: id, item: item, name: "h\(id)", keptAt: keptAt, reason: .replaced, by: device)
    }

    /// Every version of the last hour stays; older ones are thinned to one per hour, per day
    /// and per week, and past the maximum age none is left.
    @Test func versionsAreThinnedAsTheyAge() {
        let now: Int64 = 1000 * HistoryRetention.week
        let retention = HistoryRetention(maximumAge: 60 * HistoryRetention.day)
        var entries: [HistoryEntry] = []
        // One version every 10 minutes for the last 90 days: 12,960 versions.
        for step in 0..<(90 * 24 * 6) { entries.append(Self.entry(Int64(step) + 1, keptAt: now - Int64(step) * 10 * Self.minute)) }
        let removed = retention.prune(entries, now: now)
        let kept = entries.filter { !removed.contains($0.id) }.map { now - $0.keptAt }
        #expect(kept.filter { $0 < HistoryRetention.hour }.count == 6)
        let hourly = kept.filter { $0 >= HistoryRetention.hour && $0 < HistoryRetention.day }.count
        #expect((22...24).contains(hourly), "\(hourly) versions kept between an hour and a day old")
        let daily = kept.filter { $0 >= HistoryRetention.day && $0 < 30 * HistoryRetention.day }.count
        #expect((28...30).contains(daily), "\(daily) versions kept between a day and 30 days old")
        let weekly = kept.filter { $0 >= 30 * HistoryRetention.day }.count
        #expect((4...5).contains(weekly), "\(weekly) versions kept between 30 and 60 days old")
        #expect(kept.allSatisfy { $0 < 60 * HistoryRetention.day })
    }

    /// Pruning what pruning left removes nothing more, and each path is thinned on its own.
    @Test func pruningIsStableAndPerPath() {
        let now: Int64 = 100 * HistoryRetention.day
        let retention = HistoryRetention()
        var entries: [HistoryEntry] = []
        for step in 0..<200 {
            entries.append(Self.entry(Int64(step) + 1, keptAt: now - Int64(step) * 37 * Self.minute))
            entries.append(Self.entry(Int64(step) + 1001, "Documents/b.txt", keptAt: now - Int64(step) * 37 * Self.minute))
        }
        let removed = retention.prune(entries, now: now)
        let left = entries.filter { !removed.contains($0.id) }
        #expect(retention.prune(left, now: now).isEmpty)
        #expect(left.filter { $0.path.rawValue == "Documents/a.txt" }.count == left.filter { $0.path.rawValue == "Documents/b.txt" }.count)
    }

    /// Past the cap the oldest go first; a protected version stays (still counted), and so
    /// does the only version past the maximum age that is protected.
    @Test func theCapRemovesTheOldestFirstButNeverAProtectedVersion() {
        let now: Int64 = 10 * HistoryRetention.day
        let retention = HistoryRetention(maximumAge: 5 * HistoryRetention.day, diskCap: 250)
        let entries = (1...6).map { Self.entry(Int64($0), "Documents/f\($0)", keptAt: now - Int64(7 - $0) * HistoryRetention.day, size: 100) }
        // Ages 6, 5, 4, 3, 2, 1 days; 1 and 2 are past the maximum age, 1 is protected.
        let removed = retention.prune(entries, now: now, protected: [1])
        #expect(removed == [2, 3, 4, 5])
        #expect(retention.prune(entries, now: now).contains(1))
    }

    /// A kept version whose content is the current file's, or a listed conflict version's,
    /// outlives the maximum age; the other old versions, and one matching a deleted file's
    /// last content, go.
    @Test func aVersionWithTheCurrentOrAConflictsContentOutlivesTheMaximumAge() throws {
        func content(_ byte: UInt8) -> [ChunkRef] { [ChunkRef(offset: 0, size: 10, hash: ChunkHash(bytes: [UInt8](repeating: byte, count: 32))!)] }
        func kept(_ id: Int64, _ path: String, _ byte: UInt8) -> HistoryEntry {
            var entry = Self.entry(id, path, keptAt: 0)
            entry.item.chunks = content(byte)
            return entry
        }
        let (a, b, c) = try (RelativePath("Documents/a.txt"), RelativePath("Documents/b.txt"), RelativePath("Documents/c.txt"))
        let entries = [kept(1, a.rawValue, 1), kept(2, a.rawValue, 2), kept(3, a.rawValue, 3), kept(4, b.rawValue, 4), kept(5, c.rawValue, 5)]
        let conflict = Item(path: a, kind: .file, size: 10, chunks: content(3), version: VersionVector([Self.device: 9]), modifiedBy: Self.device)
        let current = [
            a: Item(path: a, kind: .file, size: 10, chunks: content(1), version: VersionVector([Self.device: 10]), modifiedBy: Self.device,
                    conflicts: [ConflictVersion(of: conflict)]),
            b: Item(path: b, kind: .file, deleted: true, size: 10, chunks: content(4), version: VersionVector([Self.device: 11]), modifiedBy: Self.device),
        ]
        let protected = HistoryRetention.protected(entries, current: current)
        #expect(protected == [1, 3])
        #expect(HistoryRetention().prune(entries, now: 400 * HistoryRetention.day, protected: protected) == [2, 4, 5])
    }
}
