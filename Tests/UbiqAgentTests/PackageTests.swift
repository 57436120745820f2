import Foundation
import Synchronization
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// File packages against real agents: a folder named like a document travels, changes and is
/// read as one item, and only its changed files' changed chunks move.
@Suite(.serialized) struct PackageTests {
    let container = AgentProcess.defaultContainer
    static let package = "Documents/Report.pages"
    static let fileSize = 64 << 10

    /// The 50 files of the package: `Index.xml`, 48 pages and a preview, each `fileSize` bytes.
    static let files = ["Index.xml", "Preview/thumbnail.png"] + (1...48).map { String(format: "Data/page-%02d.bin", $0) }

    /// Builds the package outside the container and moves it in whole.
    static func makePackage(on agent: AgentProcess) throws {
        let staging = agent.home + "/Report.pages"
        for (index, file) in files.enumerated() {
            let url = URL(fileURLWithPath: staging + "/" + file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try SeededBytes.data(fileSize, seed: UInt64(index + 1)).write(to: url)
        }
        try FileManager.default.createSymbolicLink(atPath: staging + "/Current", withDestinationPath: "Data/page-01.bin")
        try FileManager.default.moveItem(atPath: staging, toPath: agent.path(package))
    }

    /// Each of the package's files' hash, read through its path on `agent`.
    static func contents(on agent: AgentProcess) -> [String: String] {
        var hashes: [String: String] = [:]
        for file in files {
            hashes[file] = (try? TreeDigest.fileHash(agent.path(package + "/" + file))) ?? "missing"
        }
        return hashes
    }

    /// Starts the cluster's alpha and beta, connected, with alpha's package on both; returns
    /// the package's contents.
    static func startWithPackage(_ cluster: LiveCluster) async throws -> [String: String] {
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        try makePackage(on: a)
        let first = contents(on: a)
        try await waitForConvergence([a, b], "the package on beta") { _ in contents(on: b) == first }
        return first
    }

    @Test func aPackageIsOneItemAnEditMovesOnlyItsChangedFilesAndAReaderNeverSeesAMix() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()

        try Self.makePackage(on: a)
        let old = Self.contents(on: a)
        try await waitForConvergence([a, b], "the package on beta") { $0[Self.package + "/Data/page-48.bin"] != nil }
        #expect(Self.contents(on: b) == old)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: b.path(Self.package + "/Current")) == "Data/page-01.bin")

        // One item, of the summed size; nothing inside it is an item.
        for agent in [a, b] {
            let listed = try await agent.items(in: "Documents")
            let entry = try #require(listed.first { $0.path == Self.package }, "\(agent.name) lists no package: \(listed.map(\.path))")
            #expect(entry.kind == .package)
            #expect(entry.size == Int64(Self.files.count * Self.fileSize))
            #expect(try await agent.items(in: Self.package).map(\.path) == [Self.package], "the package's own path lists it alone")
        }
        let listing = try await AgentProcess.cli(["--socket", b.socket, "ls", "\(b.container)", "Documents"])
        let line = try #require(listing.split(separator: "\n").first { $0.contains("Report.pages") }, "\(listing)")
        #expect(line.hasPrefix("package") && line.contains("Report.pages [package]") && line.contains("3.1 MiB"), "\(line)")
        let alone = try await AgentProcess.cli(["--socket", b.socket, "ls", "\(b.container)", Self.package])
        #expect(alone.split(separator: "\n").count == 2 && alone.contains("Report.pages [package]"), "\(alone)")

        // A client's read lease on the package holds back the incoming version whole.
        let holder = try await UbiqAgentClient.connect(socketPath: b.socket)
        let lease: CoordinateAcquireResult = try await holder.connection.call(
            ControlMethod.coordinateAcquire.rawValue,
            params: CoordinateAcquireParams(container: container, items: [.init(path: Self.package, access: "read")]))
        let before = try await b.status().bytesReceived
        try await Self.edit(["Index.xml", "Data/page-07.bin", "Data/page-30.bin"], on: a, seed: 100)
        let second = Self.contents(on: a)
        #expect(second != old)
        try await waitUntil("beta to learn of the change") {
            try await b.status().containers[0].needItems == 1 || Self.contents(on: b) != old
        }
        let received = try await b.status().bytesReceived - before
        #expect(Self.contents(on: b) == old, "the package changed under a client's read lease")
        _ = try await holder.connection.call(ControlMethod.coordinateRelease.rawValue, params: ["lease": .integer(Int64(lease.lease))])
        await holder.close()
        try await waitForConvergence([a, b], "the edit on beta") { _ in Self.contents(on: b) == second }
        let total = try await b.status().bytesReceived - before
        print("3 files edited in a package of 50 (\(Self.files.count * Self.fileSize) bytes): \(total) bytes received, \(received) before the apply")
        // Three files' changed chunks (each file is one or two chunks) and the entry: far less
        // than the package.
        #expect(total < 3 * UInt64(Self.fileSize) + (64 << 10), "an edit of three files moved \(total) bytes")

        // A coordinated reader on beta reads the whole package again and again while another
        // version lands: each read sees one version whole.
        let reads = Mutex<[[String: String]]>([])
        let reader = Task {
            let client = try await UbiqAgentClient.connect(socketPath: b.socket)
            defer { Task { await client.close() } }
            let coordinator = FileCoordinator(client: client, container: container)
            while !Task.isCancelled {
                let seen = try await coordinator.coordinate(readingItemAt: Self.package) { Self.contents(on: b) }
                reads.withLock { $0.append(seen) }
            }
        }
        defer { reader.cancel() }
        try await waitUntil("the reader to read the package") { reads.withLock { $0.count } >= 2 }
        try await Self.edit(["Data/page-01.bin", "Data/page-02.bin", "Preview/thumbnail.png"], on: a, seed: 200)
        let third = Self.contents(on: a)
        try await waitForConvergence([a, b], "the second edit on beta") { _ in Self.contents(on: b) == third }
        let readsBefore = reads.withLock { $0.count }
        try await waitUntil("the reader to read the new version") { reads.withLock { $0.count } > readsBefore + 1 }
        reader.cancel()
        let seen = reads.withLock { $0 }
        let mixed = seen.filter { $0 != second && $0 != third }
        #expect(mixed.isEmpty, "\(mixed.count) of \(seen.count) reads saw the package half old and half new")
        #expect(seen.contains(second) && seen.contains(third))
        #expect(try await b.items(in: "Documents").filter { $0.path.hasPrefix(Self.package) }.count == 1)
    }

    @Test func concurrentEditsMakeOneConflictKeepingTheWholeLosingPackage() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        _ = try await Self.startWithPackage(cluster)
        let original = try await a.versions(Self.package).current.id

        // Different inner files edited on each while apart; beta's edit is the later one.
        b.stop()
        try await Self.edit(["Data/page-03.bin"], on: a, seed: 400)
        let alphaEdit = Self.contents(on: a)
        try await waitUntil("alpha to record its edit") { try await a.versions(Self.package).current.id != original }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: b.path(Self.package + "/Data/page-40.bin")))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: SeededBytes.data(4096, seed: 401))
        try handle.close()
        let betaEdit = Self.contents(on: b)
        try await b.startAndWait()

        try await waitUntil("both agents to agree on one conflict") {
            let (va, vb) = (try await a.versions(Self.package), try await b.versions(Self.package))
            return va.current.id == vb.current.id && va.conflicts.map(\.id) == vb.conflicts.map(\.id) && va.conflicts.count == 1
                && Self.contents(on: a) == Self.contents(on: b)
        }
        #expect(Self.contents(on: a) == betaEdit, "the later package is not current")
        #expect(try await a.status().conflicts == 1)
        // Each agent keeps the whole losing package (alpha's edit) as the conflict version.
        try await waitUntil("both agents to keep the losing package whole") {
            try [a, b].allSatisfy { agent in
                let kept = try FileManager.default.contentsOfDirectory(atPath: agent.root + "/.ubiq/versions")
                guard kept.count == 1 else { return false }
                let folder = agent.root + "/.ubiq/versions/" + kept[0]
                let hashes = Self.files.map { (try? TreeDigest.fileHash(folder + "/" + $0)) ?? "missing" }
                return Dictionary(uniqueKeysWithValues: zip(Self.files, hashes)) == alphaEdit
            }
        }
        for agent in [a, b] { #expect(try await agent.items(in: Self.package).map(\.path) == [Self.package]) }

        let conflictID = try await a.versions(Self.package).conflicts[0].id
        try await AgentProcess.cli(["--socket", a.socket, "resolve", "\(a.container)", Self.package, "--keep", conflictID])
        try await waitUntil("the resolution to reach both") {
            let (va, vb) = (try await a.versions(Self.package), try await b.versions(Self.package))
            return va.conflicts.isEmpty && vb.conflicts.isEmpty && Self.contents(on: a) == alphaEdit && Self.contents(on: b) == alphaEdit
        }
        try await waitUntil("kept versions to be dropped") {
            try [a, b].allSatisfy { try FileManager.default.contentsOfDirectory(atPath: $0.root + "/.ubiq/versions").isEmpty }
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: b.path(Self.package + "/Current")) == "Data/page-01.bin")
    }

    /// A query lists the package once, with its summed size and latest change, and hears of
    /// it once per version; a presenter of the package gets one `didChange` per version.
    @Test func aQueryAndAPresenterSeeOneItemOnceAVersion() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        _ = try await Self.startWithPackage(cluster)

        let query = MetadataQuery(container: b.container)
        let gathered = try await query.start(socketPath: b.socket)
        #expect(gathered.map(\.path) == [Self.package])
        #expect(gathered.first?.kind == .package && gathered.first?.size == Int64(Self.files.count * Self.fileSize))
        let updates = Collected(query.updates)
        let client = try await UbiqAgentClient.connect(socketPath: b.socket)
        let events = try await client.presentedItemEvents(container: container, path: Self.package)
        let heard = Mutex<[PresenterNotice]>([])
        let listener = Task { for await event in events { heard.withLock { $0.append(event) } } }
        defer { listener.cancel() }

        var versions: [[String: String]] = []
        for round in 0..<2 {
            try await Self.edit(["Index.xml", "Data/page-1\(round).bin", "Data/page-2\(round).bin"], on: a, seed: 700 + UInt64(round) * 10)
            versions.append(Self.contents(on: a))
            try await waitUntil("beta to apply version \(round + 1)") { Self.contents(on: b) == versions[round] }
            try await waitUntil("beta's query to hear of version \(round + 1)") {
                updates.all.flatMap(\.changed).filter { $0.path == Self.package }.count == round + 1
            }
        }
        let latest = try #require(await query.results.first)
        // The latest change is that of the newest file inside, not the package folder's own mtime.
        let newest = try Self.files.map { try FileManager.default.attributesOfItem(atPath: b.path(Self.package + "/" + $0))[.modificationDate] as! Date }.max()!
        #expect(abs(latest.modified.timeIntervalSince(newest)) < 0.001)
        #expect(updates.all.allSatisfy { $0.added.isEmpty && $0.removed.isEmpty && $0.changed.allSatisfy { $0.path == Self.package } })
        #expect(updates.all.flatMap(\.changed).count == 2, "\(updates.all.flatMap(\.changed).count) query updates for two versions")
        try await waitUntil("beta's presenter to hear of both versions") {
            heard.withLock { $0.filter { $0 == .didChange(path: Self.package, origin: "remote") }.count >= 2 }
        }
        #expect(heard.withLock { $0 } == [.didChange(path: Self.package, origin: "remote"), .didChange(path: Self.package, origin: "remote")])
        await query.stop()
        await client.close()
    }

    /// A package a peer's change replaces or deletes is kept whole in the history and trash,
    /// and restored whole on both devices.
    @Test func aReplacedOrDeletedPackageIsKeptWholeAndRestored() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let first = try await Self.startWithPackage(cluster)
        try await Self.edit(["Index.xml", "Data/page-11.bin"], on: a, seed: 900)
        let second = Self.contents(on: a)
        try await waitUntil("beta to apply the edit") { Self.contents(on: b) == second }

        let kept = try #require(try await HistoryTests.history(b, Self.package).versions.first)
        #expect(kept.reason == "replaced" && kept.size == Int64(Self.files.count * Self.fileSize))
        let names = try FileManager.default.contentsOfDirectory(atPath: b.path(".ubiq/history"))
        #expect(names.count == 1)
        let tree = b.path(".ubiq/history/" + (names.first ?? "missing"))
        #expect(Dictionary(uniqueKeysWithValues: Self.files.map { ($0, (try? TreeDigest.fileHash(tree + "/" + $0)) ?? "missing") }) == first,
                "beta's history does not hold the replaced package whole")
        // A program on beta writes in place into a file the edit left as it was: the kept tree
        // shares no file with the package in place, so it stays as it was.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: b.path(Self.package + "/Data/page-20.bin")))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data("written in place".utf8))
        try handle.close()
        #expect((try? TreeDigest.fileHash(tree + "/Data/page-20.bin")) == first["Data/page-20.bin"],
                "an edit in place of the package changed the version kept in the history")
        let third = Self.contents(on: b)
        try await waitUntil("alpha to get beta's edit in place") { Self.contents(on: a) == third }

        // Deleted as an application does, under a write lease: a program deleting file by file
        // unannounced can pause long enough for a scan to take a half-deleted package.
        try await a.withClient { client in
            try await FileCoordinator(client: client, container: a.container).coordinate(writingItemAt: Self.package) {
                try FileManager.default.removeItem(atPath: a.path(Self.package))
            }
        }
        try await waitUntil("beta to delete the package") { !FileManager.default.fileExists(atPath: b.path(Self.package)) }
        let trash = try await b.withClient { try await $0.trash(container: b.container, path: "Documents") }
        #expect(trash.map(\.path) == [Self.package])
        // Beta keeps the two it lost (alpha keeps the one beta's edit replaced there).
        let beta = try await b.status().device.id
        let keptOnBeta = try await HistoryTests.history(b, Self.package).versions.filter { $0.devices.contains(beta) }
        #expect(keptOnBeta.map(\.reason).sorted() == ["deleted", "replaced"], "\(keptOnBeta)")

        let result = try await b.withClient { try await $0.restore(container: b.container, path: Self.package, version: kept.id) }
        #expect(result.path == Self.package)
        try await waitUntil("the first version back on both") { Self.contents(on: a) == first && Self.contents(on: b) == first }
        #expect(try await b.items(in: Self.package).map(\.path) == [Self.package])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: a.path(Self.package + "/Current")) == "Data/page-01.bin")
    }

    /// A folder put back as it was at a moment puts its packages back whole too: one edited
    /// since gets its version of then, one created since goes to the history.
    @Test func aFolderRestoredToAMomentPutsItsPackagesBack() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let first = try await Self.startWithPackage(cluster)
        let before = Date()
        try await Self.edit(["Data/page-12.bin"], on: a, seed: 1000)
        let later = "Documents/Later.pages"
        try a.write(later + "/Index.xml", "made after the moment")
        try await waitUntil("beta to have both changes") {
            Self.contents(on: b) == Self.contents(on: a) && b.read(later + "/Index.xml") != nil
        }

        let result = try await b.withClient { try await $0.restoreFolder(container: b.container, path: "Documents", at: before) }
        #expect(result.restored == [Self.package] && result.removed == [later], "\(result)")
        try await waitUntil("the folder as it was on both") {
            Self.contents(on: a) == first && Self.contents(on: b) == first
                && !FileManager.default.fileExists(atPath: a.path(later)) && !FileManager.default.fileExists(atPath: b.path(later))
        }
        #expect(try await HistoryTests.history(b, later).versions.map(\.reason) == ["deleted"])
    }

    /// A device whose `package_extensions` leave a package out syncs its inside as items: the
    /// other refuses those entries, and neither overwrites the other's folder.
    @Test func devicesWithDifferentPackageListsLoseNothing() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        b.configTables = ["[sync]", "package_extensions = [\"numbers\"]"]
        try await cluster.start()
        try await cluster.waitConnected()
        try b.write(Self.package + "/x.txt", "beta's file")
        try await waitUntil("alpha to refuse beta's entry inside its package") {
            a.logText().contains("refused a peer's entry inside a file package")
        }
        #expect(!FileManager.default.fileExists(atPath: a.path(Self.package + "/x.txt")))
        try await waitUntil("beta to say why alpha's package cannot replace its folder") {
            try await b.status().containers[0].failures.contains { $0.error.contains("package_extensions") }
        }
        #expect(b.read(Self.package + "/x.txt") == "beta's file")
        #expect(try await a.status().containers[0].packages == 1)
        #expect(try await b.status().containers[0].packages == 0)
    }

    /// Adding an extension to every device's list turns an existing folder into a package
    /// (one version, no conflict, its inner items gone from listings, its files kept);
    /// removing it turns the package back into a folder with items.
    @Test func changingTheListTurnsFoldersIntoPackagesAndBack() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let without = ["[sync]", "package_extensions = [\"numbers\"]"]
        for agent in [a, b] { agent.configTables = without }
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write(Self.package + "/Index.xml", "index")
        try a.write(Self.package + "/Data/one.bin", "one")
        try await waitForConvergence([a, b], "the folder on beta") { $0[Self.package + "/Data/one.bin"] != nil }
        #expect(try await b.items(in: Self.package).map(\.path).sorted() == [Self.package + "/Data", Self.package + "/Index.xml"])

        for agent in [a, b] {
            agent.stop()
            agent.configTables = []
        }
        try await cluster.start()
        try await cluster.waitConnected()
        for agent in [a, b] {
            try await waitUntil("\(agent.name) to list the folder as a package") {
                let kind = try await agent.items(in: "Documents").first { $0.path == Self.package }?.kind
                let inside = try await agent.items(in: Self.package)
                return kind == .package && inside.map(\.path) == [Self.package]
            }
        }
        try await waitUntil("both to agree on the package's version") {
            try await a.versions(Self.package).current == b.versions(Self.package).current
        }
        for agent in [a, b] {
            #expect(try await agent.versions(Self.package).conflicts.isEmpty)
            #expect(agent.read(Self.package + "/Data/one.bin") == "one" && agent.read(Self.package + "/Index.xml") == "index")
        }

        for agent in [a, b] {
            agent.stop()
            agent.configTables = without
        }
        try await cluster.start()
        try await cluster.waitConnected()
        for agent in [a, b] {
            try await waitUntil("\(agent.name) to list the package's files as items again") {
                let kind = try await agent.items(in: "Documents").first { $0.path == Self.package }?.kind
                let inside = try await agent.items(in: Self.package + "/Data")
                return kind == .directory && inside.map(\.path) == [Self.package + "/Data/one.bin"]
            }
            #expect(agent.read(Self.package + "/Data/one.bin") == "one")
        }
    }

    /// A program that writes a package's files one after another without coordinating makes
    /// one new version once the package is quiet, not one per file.
    @Test func uncoordinatedWritesInsideAreGatheredIntoOneVersion() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        try Self.makePackage(on: a)
        func counter() async throws -> Int? {
            guard let version = try await a.items(in: "Documents").first(where: { $0.path == Self.package })?.version else { return nil }
            return Int(version.split(separator: ":").last?.filter(\.isNumber) ?? "")
        }
        try await waitUntil("alpha to record the package") { try await counter() != nil }
        let before = try #require(try await counter())
        let clock = ContinuousClock()
        let start = clock.now
        // Ten files, 20 ms apart: each is closed long before the next (a watcher's settle
        // delay is 3 ms), all within the package's quiet window of 200 ms.
        for index in 0..<10 {
            try await clock.sleep(until: start + .milliseconds(20 * index))
            try SeededBytes.data(4096, seed: 800 + UInt64(index)).write(to: URL(fileURLWithPath: a.path(Self.package + "/Data/new-\(index).bin")))
        }
        try await waitUntil("alpha to record the new files") {
            try await a.items(in: "Documents").first { $0.path == Self.package }?.size == Int64(Self.files.count * Self.fileSize + 10 * 4096)
        }
        let after = try #require(try await counter())
        print("ten files written 20 ms apart inside a package: \(after - before) new versions")
        #expect(after - before <= 2, "ten files written one after another made \(after - before) versions of the package")
    }

    /// In an on-demand container a package is downloaded, kept up to date and evicted whole.
    @Test func anOnDemandPackageIsDownloadedAndEvictedAsAUnit() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        b.onDemand = true
        try await cluster.start()
        try await cluster.waitConnected()
        try Self.makePackage(on: a)
        let first = Self.contents(on: a)
        func entry() async throws -> ItemEntry? { try await b.items(in: "Documents").first { $0.path == Self.package } }

        try await waitUntil("beta to list the package, not downloaded") { try await entry()?.downloaded == false }
        #expect(try await entry()?.size == Int64(Self.files.count * Self.fileSize))
        #expect(!FileManager.default.fileExists(atPath: b.path(Self.package)))

        #expect(try await b.withClient { try await $0.startDownloading(container: container, path: Self.package, wait: true) })
        #expect(Self.contents(on: b) == first)
        #expect(try await entry()?.downloaded == true)

        // Downloaded, it is kept up to date.
        try await Self.edit(["Data/page-05.bin"], on: a, seed: 500)
        let second = Self.contents(on: a)
        try await waitUntil("beta to fetch the new version") { Self.contents(on: b) == second }

        try await b.withClient { try await $0.evict(container: container, path: Self.package) }
        #expect(!FileManager.default.fileExists(atPath: b.path(Self.package)))
        #expect(try await entry()?.downloaded == false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: b.root + "/.ubiq/tmp").isEmpty)

        // Evicted, a new version is metadata only; asked for again, it comes whole.
        let secondID = try await a.versions(Self.package).current.id
        try await Self.edit(["Data/page-06.bin"], on: a, seed: 600)
        let third = Self.contents(on: a)
        try await waitUntil("alpha to record the new version") { try await a.versions(Self.package).current.id != secondID }
        let thirdID = try await a.versions(Self.package).current.id
        try await waitUntil("beta to record the new version without its content") { try await b.versions(Self.package).current.id == thirdID }
        #expect(!FileManager.default.fileExists(atPath: b.path(Self.package)))
        #expect(try await b.withClient { try await $0.startDownloading(container: container, path: Self.package, wait: true) })
        #expect(Self.contents(on: b) == third)
    }

    /// Writes 4 KiB into the middle of each of `files` of the package on `agent`, all under
    /// one coordinated write lease on the package, as an application saving it does.
    static func edit(_ files: [String], on agent: AgentProcess, seed: UInt64) async throws {
        try await agent.withClient { client in
            let coordinator = FileCoordinator(client: client, container: AgentProcess.defaultContainer)
            try await coordinator.coordinate(writingItemAt: package) {
                for (index, file) in files.enumerated() {
                    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: agent.path(package + "/" + file)))
                    try handle.seek(toOffset: UInt64(fileSize / 2))
                    try handle.write(contentsOf: SeededBytes.data(4096, seed: seed + UInt64(index)))
                    try handle.close()
                }
            }
        }
    }
}

/// An agent killed while it swaps a package in comes back with one whole version at the
/// package's path, and the new one once it syncs again.
@Suite(.serialized) struct PackageCrashTests {
    @Test(arguments: ["package-staged", "package-exchanged"]) func aCrashDuringAPackageSwapLeavesItWhole(step: String) async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let old = try await PackageTests.startWithPackage(cluster)

        b.stop()
        b.environment = ["UBIQ_TEST_CRASH_AT": step, "UBIQ_TEST_CRASH_PATH": PackageTests.package]
        try await b.startAndWait()
        try await PackageTests.edit(["Index.xml", "Data/page-10.bin"], on: a, seed: 300)
        let new = PackageTests.contents(on: a)
        try await waitUntil("beta to die at \(step)", timeout: .seconds(60)) { !b.isRunning }
        #expect(PackageTests.contents(on: b) == (step == "package-exchanged" ? new : old), "after a crash at \(step) the package is neither version")

        b.environment = [:]
        try await b.startAndWait()
        try await waitForConvergence([a, b], "the new version on beta after the restart") { _ in PackageTests.contents(on: b) == new }
        try await waitUntil("beta to have nothing left to apply") { try await b.status().containers.first?.needItems == 0 }
        #expect(try FileManager.default.contentsOfDirectory(atPath: b.root + "/.ubiq/tmp").isEmpty, "staged trees left")
        for agent in [a, b] {
            #expect(try await agent.versions(PackageTests.package).conflicts.isEmpty, "\(agent.name) made up a conflict")
        }
        try await waitUntil("both to agree on the current version") {
            try await a.versions(PackageTests.package).current == b.versions(PackageTests.package).current
        }
        // Beta recorded alpha's version as applied, not a change of its own.
        let current = try await b.versions(PackageTests.package).current
        #expect(current.modifiedBy == (try await a.status().device.id), "beta took the package for its own change: \(current.version)")
    }
}
