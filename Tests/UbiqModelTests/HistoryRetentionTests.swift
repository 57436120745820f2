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
}
