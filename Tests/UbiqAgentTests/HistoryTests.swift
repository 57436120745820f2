import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqTestSupport

/// Nothing lost: a file a peer's change replaces or deletes stays in this device's history,
/// across restarts and kill -9, and can be made current again on every device.
@Suite(.serialized) struct HistoryTests {
    static func history(_ agent: AgentProcess, _ path: String? = nil) async throws -> HistoryList {
        try await agent.withClient { try await $0.history(container: agent.container, path: path) }
    }

    static func keptBytes(_ agent: AgentProcess, _ version: HistoryVersion) throws -> String? {
        let names = try FileManager.default.contentsOfDirectory(atPath: agent.path(".ubiq/history"))
        return names.compactMap { try? String(contentsOfFile: agent.path(".ubiq/history/" + $0), encoding: .utf8) }
            .first { $0.utf8.count == version.size }
    }

    /// Alpha writes `count` versions of `path`, each waited for on beta, which keeps the
    /// ones before the last.
    static func writeVersions(_ count: Int, of path: String, on a: AgentProcess, keptBy b: AgentProcess) async throws {
        for version in 1...count {
            try a.write(path, "version \(version)")
            try await waitForConvergence([a, b], "version \(version) on beta") { _ in b.read(path) == "version \(version)" }
        }
    }

    @Test func aFileDeletedOnOneDeviceIsRestoredOnAnother() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let path = "Documents/reports/q3.txt"
        try a.write(path, "the original bytes")
        try await waitForConvergence([a, b], "the report on beta") { $0[path] != nil }
        #expect(unlink(a.path(path)) == 0)
        try await waitForConvergence([a, b], "the deletion on beta") { $0[path] == nil }

        let trash = try await b.withClient { try await $0.trash(container: b.container, path: "Documents/reports") }
        let entry = try #require(trash.first { $0.path == path }, "beta's trash: \(trash)")
        let status = try await a.status()
        #expect(entry.deletedBy == status.device.id && entry.size == 18)
        // Beta kept the inode it had: no copy of the bytes was made.
        let kept = try #require(try await Self.history(b, path).versions.first)
        #expect(kept.reason == "deleted" && kept.id == entry.version)
        #expect(try Self.keptBytes(b, kept) == "the original bytes")

        let result = try await b.withClient { try await $0.restore(container: b.container, path: path, version: entry.version) }
        #expect(result.path == path && result.size == 18)
        try await waitForConvergence([a, b], "the restored report on both") { _ in a.read(path) == "the original bytes" }
        #expect(b.read(path) == "the original bytes")
        #expect(try await b.withClient { try await $0.trash(container: b.container) }.isEmpty)
    }

    @Test func anOverwrittenVersionIsKeptAcrossKillAndRestoredThroughTheCLI() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let path = "Documents/notes.txt"
        try a.write(path, "first draft")
        try await waitForConvergence([a, b], "the first draft on beta") { _ in b.read(path) == "first draft" }
        try a.write(path, "encrypted garbage!")
        try await waitForConvergence([a, b], "the overwrite on beta") { _ in b.read(path) == "encrypted garbage!" }

        let versions = try await Self.history(b, path).versions
        #expect(versions.count == 1)
        let shown = try #require(try await b.status().containers.first?.history)
        #expect(shown.versions == 1 && shown.bytes == 11 && shown.maxAgeDays == 365 && (shown.maxBytes ?? 0) > 0)
        let first = try #require(versions.first)
        let alpha = try await a.status().device.id
        #expect(first.reason == "replaced" && first.size == 11 && first.by == alpha)
        #expect(try Self.keptBytes(b, first) == "first draft")

        b.kill()
        try await b.startAndWait()
        #expect(try await Self.history(b, path).versions == versions)

        let restored = try await AgentProcess.cli(["--socket", b.socket, "restore", b.container.rawValue, path, "--version", first.id])
        #expect(restored.contains("Restored \(path)"))
        try await waitForConvergence([a, b], "the first draft back on both") { _ in a.read(path) == "first draft" }
        // What the restore replaced is kept too.
        let after = try await Self.history(b, path).versions
        let beta = try await b.status().device.id
        #expect(after.count == 2 && after.first?.size == 18 && after.first?.by == beta)
        let listed = try await AgentProcess.cli(["--socket", b.socket, "history", b.container.rawValue, path])
        #expect(listed.contains(first.id) && listed.contains("replaced"))
    }

    /// What ransomware does: a script overwrites 200 files (and drops a note, and deletes
    /// one) on alpha; beta puts the folder back as it was before, and both devices end with
    /// the original bytes, the overwritten versions kept in beta's history.
    @Test func aPointInTimeRestoreUndoesAScriptThatOverwroteAFolder() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let names = (0..<200).map { "Documents/photos/\($0 / 20)/img\($0).txt" }
        for (index, name) in names.enumerated() { try a.write(name, "original \(index)") }
        try a.write("Documents/photos/keep.txt", "untouched")
        try await waitForConvergence([a, b], timeout: .seconds(120), "the photos on beta") { tree in names.allSatisfy { tree[$0] != nil } }
        let before = Date()

        for (index, name) in names.enumerated() { try a.write(name, "ENCRYPTED \(index) \(String(repeating: "x", count: index))") }
        try a.write("Documents/photos/README-RANSOM.txt", "pay up")
        #expect(unlink(a.path("Documents/photos/keep.txt")) == 0)
        try await waitForConvergence([a, b], timeout: .seconds(120), "the damage on beta") { tree in
            tree["Documents/photos/README-RANSOM.txt"] != nil && tree["Documents/photos/keep.txt"] == nil
                && b.read(names[199])?.hasPrefix("ENCRYPTED") == true
        }

        let result = try await b.withClient { try await $0.restoreFolder(container: b.container, path: "Documents/photos", at: before) }
        #expect(result.failed.isEmpty, "\(result.failed)")
        #expect(result.restored.count == 201 && result.removed == ["Documents/photos/README-RANSOM.txt"])
        try await waitForConvergence([a, b], timeout: .seconds(120), "the photos back on both") { tree in
            tree["Documents/photos/README-RANSOM.txt"] == nil && a.read("Documents/photos/keep.txt") == "untouched"
                && names.enumerated().allSatisfy { a.read($1) == "original \($0)" }
        }
        #expect(names.enumerated().allSatisfy { b.read($1) == "original \($0)" })
        // Beta keeps both: each original (replaced by the script) and each encrypted version
        // (replaced by the restore); the ransom note is in its trash.
        let kept = try await Self.history(b, "Documents/photos")
        #expect(kept.versions.filter { $0.path == names[7] }.count == 2)
        let trash = try await b.withClient { try await $0.trash(container: b.container) }
        #expect(trash.map(\.path) == ["Documents/photos/README-RANSOM.txt"])
        // Alpha keeps no version of the script's edits (its own), but keeps each encrypted
        // version the restore replaced there: listed on alpha, that one is kept on both
        // devices (alpha first), the original on beta alone.
        let (alpha, beta) = (try await a.status().device.id, try await b.status().device.id)
        let merged = try await Self.history(a, names[7]).versions
        #expect(merged.first { $0.size == 19 }?.devices == [alpha, beta] && merged.first { $0.size == 10 }?.devices == [beta], "\(merged)")

        // A time before the history starts changes nothing.
        do {
            _ = try await b.withClient {
                try await $0.restoreFolder(container: b.container, path: "Documents/photos", at: before.addingTimeInterval(-86_400))
            }
            Issue.record("a restore to before the history was accepted")
        } catch let error as RPCError {
            // The text docs/control-protocol.md shows.
            #expect(error.code == .invalidParams, "\(error)")
            #expect(error.message.hasPrefix("the history of the container on this device and its connected peers starts at "), "\(error)")
            #expect(error.message.hasSuffix("Z; choose a later time"), "\(error)")
        }
        #expect(names.enumerated().allSatisfy { b.read($1) == "original \($0)" })
    }

    /// A restore a person asks for is no mass deletion to hold: putting a folder back as it
    /// was before 300 files were added to it removes them all, most of the container's files.
    @Test func aRestoreThatRemovesMostOfTheContainerIsNotHeld() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        for n in 0..<5 { try a.write("Documents/old\(n).txt", "old \(n)") }
        try await waitUntil("alpha to index the five files") { try await a.status().containers.first?.files == 5 }
        let before = Date()
        // The file system stamps times from a coarse clock (a tick behind): the new files must
        // be stamped after `before`, so its clock is waited for to pass it.
        let probe = cluster.directory.appending("clock-probe")
        try await waitUntil("the file system's clock to pass the moment restored to", every: .milliseconds(1)) {
            _ = FileManager.default.createFile(atPath: probe, contents: Data())
            let stamped = try FileManager.default.attributesOfItem(atPath: probe)[.modificationDate] as? Date
            return stamped.map { $0 > before } ?? false
        }
        for n in 0..<300 { try a.write("Documents/new/\(n / 30)/f\(n).txt", "new \(n)") }
        try await waitUntil("alpha to index the 300 new files") { try await a.status().containers.first?.files == 305 }
        let result = try await a.withClient { try await $0.restoreFolder(container: a.container, path: "Documents", at: before) }
        #expect(result.failed.isEmpty && result.removed.count == 300, "\(result.failed)")
        try await waitUntil("alpha's index to record the 300 deletions") {
            let status = try await a.status().containers.first
            return status?.files == 5 && status?.heldDeletions == nil
        }
        #expect((0..<5).allSatisfy { a.read("Documents/old\($0).txt") == "old \($0)" })
    }

    /// The CLI's forms: `ubiq trash --json` lists a file alpha deleted, with who deleted it,
    /// and `ubiq restore --at TIME` puts the folder back as it was then on both devices.
    @Test func theCLIListsTheTrashAndPutsAFolderBackAsItWasAtATime() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let names = (0..<10).map { "Documents/album/img\($0).txt" }
        let (gone, note) = ("Documents/album/caption.txt", "Documents/album/README-RANSOM.txt")
        for (index, name) in names.enumerated() { try a.write(name, "photo \(index)") }
        try a.write(gone, "the caption")
        try await waitForConvergence([a, b], "the album on beta") { tree in tree[gone] != nil && names.allSatisfy { tree[$0] != nil } }
        let before = Date()
        for (index, name) in names.enumerated() { try a.write(name, "LOCKED \(index)") }
        #expect(unlink(a.path(gone)) == 0)
        try a.write(note, "pay up")
        try await waitForConvergence([a, b], "the changes on beta") { tree in
            tree[gone] == nil && tree[note] != nil && names.enumerated().allSatisfy { b.read($1) == "LOCKED \($0)" }
        }

        let json = try await AgentProcess.cli(["--socket", b.socket, "trash", b.container.rawValue, "--json"])
        let trash = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]], "\(json)")
        let alpha = try await a.status().device.id
        #expect(trash.count == 1 && trash.first?["path"] as? String == gone && trash.first?["deletedBy"] as? String == alpha.rawValue, "\(json)")

        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let output = try await AgentProcess.cli(["--socket", b.socket, "restore", b.container.rawValue, "Documents/album", "--at", formatter.string(from: before)])
        #expect(output.contains(": 11 restored, 1 created since moved to the history, 0 unchanged."), "\(output)")
        try await waitForConvergence([a, b], "the album back on both") { tree in
            tree[note] == nil && a.read(gone) == "the caption" && names.enumerated().allSatisfy { a.read($1) == "photo \($0)" }
        }
        #expect(b.read(gone) == "the caption" && names.enumerated().allSatisfy { b.read($1) == "photo \($0)" })
    }

    /// A client's own edit in place, made under a write lease, is in the writing device's
    /// history too; a lease under which nothing changed leaves nothing behind.
    @Test func aCoordinatedWriteKeepsThePreviousVersionOnTheWritingDevice() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        let path = "Documents/ledger.txt"
        try a.write(path, "balance: 100")
        try await waitUntil("alpha to record the ledger") { try await a.items(in: "Documents").contains { $0.path == path } }
        try await a.withClient { client in
            let coordinator = FileCoordinator(client: client, container: a.container)
            try await coordinator.coordinate(writingItemAt: path) { }
            try await waitUntil("the copy of a lease that changed nothing to go") { try await Self.history(a, path).versions.isEmpty }
            try await coordinator.coordinate(writingItemAt: path) {
                let handle = try #require(FileHandle(forWritingAtPath: a.path(path)))
                try handle.write(contentsOf: Data("balance: 0!!".utf8))
                try handle.close()
            }
        }
        try await waitUntil("the edit recorded and the old balance kept") {
            let kept = try await Self.history(a, path).versions
            return kept.count == 1 && a.read(path) == "balance: 0!!"
        }
        let kept = try #require(try await Self.history(a, path).versions.first)
        #expect(try Self.keptBytes(a, kept) == "balance: 100")
    }

    /// Settling a conflict drops its other versions on every device; each device keeps
    /// them in its history.
    @Test func conflictVersionsAResolutionDropsAreKept() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let path = "Documents/plan.txt"
        try a.write(path, "version zero")
        try await waitForConvergence([a, b], "the first version on beta") { _ in b.read(path) == "version zero" }
        let original = try await a.versions(path).current.id
        b.stop()
        try a.write(path, "alpha's plan")
        try await waitUntil("alpha to record its edit") { try await a.versions(path).current.id != original }
        try b.write(path, "beta's plan, later")
        try await b.startAndWait()
        try await waitUntil("both agents to keep alpha's plan as the conflict version") {
            for agent in [a, b] {
                guard try await agent.versions(path).conflicts.count == 1,
                      ((try? FileManager.default.contentsOfDirectory(atPath: agent.path(".ubiq/versions"))) ?? []).count == 1
                else { return false }
            }
            return true
        }
        _ = try await a.withClient { try await $0.resolve(container: a.container, path: path, keep: .current) }
        try await waitUntil("both agents to keep the dropped plan in their history") {
            for agent in [a, b] {
                let kept = try await Self.history(agent, path).versions.filter { $0.reason == "resolved" }
                guard try await agent.versions(path).conflicts.isEmpty, kept.count == 1,
                      try Self.keptBytes(agent, kept[0]) == "alpha's plan"
                else { return false }
            }
            return true
        }
        #expect(a.read(path) == "beta's plan, later" && b.read(path) == "beta's plan, later")
    }

    /// Four versions kept within a minute: two hours later one is left (one per hour), and
    /// past the maximum age none. The agent's clock is moved with the test hook.
    @Test func retentionThinsVersionsAsTheClockAdvances() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let path = "Documents/log.txt"
        try await Self.writeVersions(5, of: path, on: a, keptBy: b)
        let kept = try await Self.history(b, path).versions
        #expect(kept.count == 4)

        b.stop()
        b.environment["UBIQ_TEST_CLOCK_OFFSET_SECONDS"] = "7200"
        try await b.startAndWait()
        try await waitUntil("beta to thin its history to one version an hour") { try await Self.history(b, path).versions.count == 1 }
        #expect(try await Self.history(b, path).versions.first?.id == kept.last?.id, "the oldest is the one kept")

        b.stop()
        b.environment["UBIQ_TEST_CLOCK_OFFSET_SECONDS"] = "\(400 * 86_400)"
        try await b.startAndWait()
        try await waitUntil("beta to drop versions past the maximum age") { try await Self.history(b, path).count == 0 }
        // The index forgets a version before its file goes: wait for the folder too.
        try await waitUntil("beta to remove the dropped versions' files") {
            try FileManager.default.contentsOfDirectory(atPath: b.path(".ubiq/history")).isEmpty
        }
        #expect(b.read(path) == "version 5")
    }

    /// `history.prune` applies retention at once. Beta is started with automatic pruning off
    /// (a test hook) and its clock two hours on: its four versions of the last minute stay
    /// until `ubiq history --prune` thins them to one.
    @Test func pruneAppliesRetentionWhenAsked() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        b.environment["UBIQ_TEST_HISTORY_PRUNE"] = "manual"
        try await cluster.start()
        try await cluster.waitConnected()
        let path = "Documents/log.txt"
        try await Self.writeVersions(5, of: path, on: a, keptBy: b)
        b.stop()
        b.environment["UBIQ_TEST_CLOCK_OFFSET_SECONDS"] = "7200"
        try await b.startAndWait()
        #expect(try await Self.history(b, path).count == 4)

        let output = try await AgentProcess.cli(["--socket", b.socket, "history", b.container.rawValue, path, "--prune"])
        #expect(output.contains("Pruned 3 versions (27 B); 1 kept (9 B)"), "\(output)")
        let left = try await Self.history(b, path)
        #expect(left.count == 1 && left.versions.map(\.size) == [9])
        #expect(try FileManager.default.contentsOfDirectory(atPath: b.path(".ubiq/history")).count == 1)
        let again = try await b.withClient { try await $0.pruneHistory(container: b.container) }
        #expect(again.removed == 0 && again.count == 1)
    }

    /// A kept version with the file's current content may be its only copy: pruning past the
    /// maximum age keeps it and lets the other version go. Alpha writes the text, another
    /// text, then the first text again; beta keeps both replaced versions.
    @Test func pruneKeepsAVersionWithTheCurrentContentPastTheMaximumAge() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        b.environment["UBIQ_TEST_HISTORY_PRUNE"] = "manual"
        try await cluster.start()
        try await cluster.waitConnected()
        let path = "Documents/todo.txt"
        for text in ["the current text", "another", "the current text"] {
            try a.write(path, text)
            try await waitForConvergence([a, b], "'\(text)' on beta") { _ in b.read(path) == text }
        }
        // (Alpha's scan may also catch a write half done, a version beta keeps too.)
        try await waitUntil("beta to keep both replaced versions") {
            let sizes = try await Self.history(b, path).versions.map(\.size)
            return sizes.contains(16) && sizes.contains(7)
        }
        b.stop()
        b.environment["UBIQ_TEST_CLOCK_OFFSET_SECONDS"] = "\(400 * 86_400)"
        try await b.startAndWait()

        let pruned = try await b.withClient { try await $0.pruneHistory(container: b.container) }
        #expect(pruned.removed >= 1 && pruned.count == 1, "\(pruned)")
        let left = try await Self.history(b, path).versions
        #expect(left.count == 1 && left.first?.size == 16, "\(left)")
        #expect(try left.first.flatMap { try Self.keptBytes(b, $0) } == "the current text")
        #expect(b.read(path) == "the current text")
    }

    /// A device keeps no version of its own edits in place or of what it deleted itself; its
    /// peers do. Alpha lists versions only beta keeps, restores an overwritten file and a
    /// file it deleted through beta (the bytes are nowhere else), and puts a folder it
    /// overwrote back as it was from beta's history alone.
    @Test func versionsOnlyAPeerKeepsAreListedAndRestoredThroughIt() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let beta = try await b.status().device.id
        let (draft, plan) = ("Documents/draft.txt", "Documents/old/plan.txt")
        let names = (0..<20).map { "Documents/album/img\($0).txt" }
        try a.write(draft, "the first draft, which only beta will keep")
        try a.write(plan, "the plan")
        for (index, name) in names.enumerated() { try a.write(name, "photo \(index)") }
        try await waitForConvergence([a, b], "everything on beta") { tree in tree[plan] != nil && names.allSatisfy { tree[$0] != nil } }
        let before = Date()
        try a.write(draft, "REWRITTEN")
        #expect(unlink(a.path(plan)) == 0)
        for (index, name) in names.enumerated() { try a.write(name, "LOCKED \(index)") }
        try await waitForConvergence([a, b], "the changes on beta") { tree in
            b.read(draft) == "REWRITTEN" && tree[plan] == nil && names.enumerated().allSatisfy { b.read($1) == "LOCKED \($0)" }
        }

        let listed = try await Self.history(a, draft)
        #expect(listed.count == 0 && listed.peersAsked == [beta], "alpha keeps nothing itself: \(listed)")
        let version = try #require(listed.versions.first)
        #expect(listed.versions.count == 1 && version.devices == [beta] && version.id.hasSuffix("@\(beta)") && version.size == 42)
        let trash = try await a.withClient { try await $0.trash(container: a.container, path: "Documents/old") }
        let deleted = try #require(trash.first { $0.path == plan }, "alpha's trash: \(trash)")
        #expect(deleted.version.hasSuffix("@\(beta)"))

        let output = try await AgentProcess.cli(["--socket", a.socket, "restore", a.container.rawValue, draft, "--version", version.id])
        #expect(output.contains("Restored \(draft)"), "\(output)")
        // A deleted file without --version: its newest kept version, as a person means.
        let plainRestore = try await AgentProcess.cli(["--socket", a.socket, "restore", a.container.rawValue, plan])
        #expect(plainRestore.contains("Restored \(plan)") && plainRestore.contains(deleted.version), "\(plainRestore)")
        try await waitForConvergence([a, b], "the draft and the plan back on both") { _ in
            b.read(draft) == "the first draft, which only beta will keep" && b.read(plan) == "the plan"
        }
        #expect(a.read(draft) == "the first draft, which only beta will keep" && a.read(plan) == "the plan")
        // What the restore replaced is now in alpha's own history.
        let alpha = try await a.status().device.id
        #expect(try await Self.history(a, draft).versions.contains { $0.size == 9 && $0.devices.first == alpha })

        let result = try await a.withClient { try await $0.restoreFolder(container: a.container, path: "Documents/album", at: before) }
        #expect(result.failed.isEmpty && result.restored.count == 20, "\(result)")
        try await waitForConvergence([a, b], "the album back on both") { _ in
            names.enumerated().allSatisfy { a.read($1) == "photo \($0)" && b.read($1) == "photo \($0)" }
        }

        // A version no device keeps, or a peer that is not connected: an error, nothing changed.
        for bad in ["h999@\(beta)", "h1@NOBODY-00"] {
            do {
                _ = try await a.withClient { try await $0.restore(container: a.container, path: draft, version: bad) }
                Issue.record("restoring \(bad) was accepted")
            } catch let error as RPCError {
                #expect(error.code == .notFound, "\(bad): \(error)")
            }
        }
        #expect(a.read(draft) == "the first draft, which only beta will keep")
    }

    @Test func badRestoresChangeNothing() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        try a.write("Documents/a.txt", "a")
        for (path, version, code) in [("Documents/a.txt", "h999", RPCError.Code.notFound), ("../outside", "h1", .invalidPath),
                                      ("Documents/a.txt", "current", .invalidParams)] {
            do {
                _ = try await a.withClient { try await $0.restore(container: a.container, path: path, version: version) }
                Issue.record("restoring \(version) of \(path) was accepted")
            } catch let error as RPCError {
                #expect(error.code == code, "\(path) \(version): \(error)")
            }
        }
        #expect(a.read("Documents/a.txt") == "a")
        // A folder restore outside the container, or of a path with nothing there now or in
        // the history, is refused the same way.
        for (path, code, message) in [("../x", RPCError.Code.invalidPath, "path: "),
                                      ("Documents/nothing", .notFound, "nothing is at 'Documents/nothing' now or in the history")] {
            do {
                _ = try await a.withClient { try await $0.restoreFolder(container: a.container, path: path, at: Date()) }
                Issue.record("restoring \(path) to a time was accepted")
            } catch let error as RPCError {
                #expect(error.code == code && error.message.hasPrefix(message), "\(path): \(error)")
            }
        }
        #expect(a.read("Documents/a.txt") == "a")
        #expect(!FileManager.default.fileExists(atPath: a.path("Documents/nothing")) && !FileManager.default.fileExists(atPath: a.path("../x")))
    }
}
