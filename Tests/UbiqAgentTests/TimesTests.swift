import Foundation
import Testing
import UbiqTestSupport

/// Modification times arrive to the nanosecond on files, folders and links, and a change of
/// mtime alone (`touch -d`, `rsync -a`) travels as metadata: no bytes move, and it never
/// makes a conflict version.
@Suite(.serialized) struct TimesTests {
    static func mtime(_ path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// `touch -h -d`: the entry's own mtime, never a link's target's.
    static func setMtime(_ path: String, _ nanoseconds: Int64) {
        let time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        #expect(utimensat(AT_FDCWD, path, [time, time], AT_SYMLINK_NOFOLLOW) == 0, "utimensat \(path): \(errno)")
    }

    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    @Test func mtimesTravelToTheNanosecondAndATouchMovesNoContent() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()

        // Made while both run: each entry made in a folder moves the folder's mtime too.
        try FileManager.default.createDirectory(atPath: a.path("Documents/times/sub"), withIntermediateDirectories: true)
        try a.write("Documents/times/old.txt", "kept for years")
        try a.write("Documents/times/sub/large.bin", SeededBytes.data(4 << 20, seed: 21))
        #expect(symlink("old.txt", a.path("Documents/times/link")) == 0)
        // waitForConvergence compares every mtime too (TreeDigest.times).
        try await waitForConvergence([a, b], "the tree with its mtimes on beta") {
            $0["Documents/times/link"] == "link:old.txt" && $0["Documents/times/sub/large.bin"] != nil
        }
        for path in ["Documents/times", "Documents/times/sub", "Documents/times/link", "Documents/times/old.txt"] {
            #expect(Self.mtime(a.path(path)) == Self.mtime(b.path(path)), "\(path)")
        }

        // touch -d on a file, a link and a folder, to the nanosecond.
        let before = try await b.status().bytesReceived
        let inode = Self.inode(b.path("Documents/times/sub/large.bin"))
        let times: [(String, Int64)] = [("Documents/times/sub/large.bin", 1_500_000_000_123_456_789),
                                        ("Documents/times/link", 1_400_000_000_987_654_321),
                                        ("Documents/times/sub", 1_300_000_000_000_000_007)]
        for (path, time) in times { Self.setMtime(a.path(path), time) }
        try await waitUntil("beta to have the new mtimes") {
            times.allSatisfy { Self.mtime(b.path($0.0)) == $0.1 }
        }
        let moved = try await b.status().bytesReceived - before
        print("mtime change of a 4 MiB file, a link and a folder: \(moved) bytes received")
        #expect(moved < 16 << 10, "a change of mtimes moved \(moved) bytes")
        #expect(Self.inode(b.path("Documents/times/sub/large.bin")) == inode, "the file was copied, not changed in place")
        try await waitForConvergence([a, b], "nothing to bounce back")
        #expect(times.allSatisfy { Self.mtime(a.path($0.0)) == $0.1 }, "a device changed the mtimes back")

        // A file made later in the touched folder moves the folder's mtime on, on both.
        try b.write("Documents/times/sub/new.txt", "new")
        try await waitForConvergence([a, b], "the new file and the folder's new mtime on alpha") { $0["Documents/times/sub/new.txt"] != nil }
        #expect(Self.mtime(a.path("Documents/times/sub")) != 1_300_000_000_000_000_007)
        for agent in [a, b] {
            let status = try await agent.status()
            #expect(status.containers.allSatisfy { $0.failures.isEmpty }, "\(agent.name): \(status.containers)")
        }
    }

    /// A touch on one device while another edits the bytes: the edit wins on both, with no
    /// conflict version, though the touch's mtime is the later one.
    @Test func aTouchConcurrentWithAnEditKeepsTheEditAndNoConflictVersion() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write("Documents/plan.txt", "first plan")
        try await waitForConvergence([a, b], "the plan on beta") { $0["Documents/plan.txt"] != nil }

        b.stop()
        let tomorrow = Int64(Date().timeIntervalSince1970 + 86_400) * 1_000_000_000 + 17
        Self.setMtime(a.path("Documents/plan.txt"), tomorrow)
        try await waitUntil("alpha to record the touch") {
            try await a.versions("Documents/plan.txt").current.mtime.timeIntervalSince1970 > Date().timeIntervalSince1970 + 3600
        }
        try b.write("Documents/plan.txt", "second plan, written on beta")
        try await b.startAndWait()
        try await waitForConvergence([a, b], "beta's edit on both") { _ in
            a.read("Documents/plan.txt") == "second plan, written on beta"
        }
        for agent in [a, b] {
            let versions = try await agent.versions("Documents/plan.txt")
            #expect(versions.conflicts.isEmpty, "\(agent.name) keeps a conflict version of the same bytes: \(versions.conflicts)")
        }
        #expect(Self.mtime(a.path("Documents/plan.txt")) != tomorrow)
    }
}
