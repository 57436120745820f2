import Foundation
import Synchronization
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// An on-demand container: every item's metadata is on every device, content only where it
/// was asked for; eviction drops content but keeps metadata, and is refused where it would
/// lose the only copy.
@Suite(.serialized) struct OnDemandTests {
    let container = AgentProcess.defaultContainer

    func item(_ agent: AgentProcess, _ path: String) async throws -> ItemEntry? {
        let parent = (path as NSString).deletingLastPathComponent
        return try await agent.withClient { try await $0.items(container: container, path: parent) }.first { $0.path == path }
    }

    func call<R: Decodable & Sendable>(_ agent: AgentProcess, _ method: ControlMethod, _ params: some Encodable & Sendable) async throws -> R {
        try await agent.withClient { try await $0.connection.call(method.rawValue, params: params) }
    }

    @Test func metadataEverywhereContentWhenAskedAndEvictionKeepsTheMetadata() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        b.onDemand = true
        try await cluster.start()
        try await cluster.waitConnected()
        let big = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try a.write("Documents/big.bin", big)
        try a.write("Documents/note.txt", "small note")

        try await waitUntil("beta to list both, not downloaded") {
            let (x, y) = (try await item(b, "Documents/big.bin"), try await item(b, "Documents/note.txt"))
            return x?.downloaded == false && y?.downloaded == false && x?.size == Int64(big.count)
        }
        #expect(!FileManager.default.fileExists(atPath: b.path("Documents/big.bin")))
        #expect(try await b.status().containers[0].notDownloaded == 2)

        // Asked for: the content comes, complete.
        #expect(try await b.withClient { try await $0.startDownloading(container: container, path: "Documents/big.bin", wait: true) })
        #expect(try Data(contentsOf: URL(fileURLWithPath: b.path("Documents/big.bin"))) == big)
        #expect(try await item(b, "Documents/big.bin")?.downloaded == true)

        // A downloaded file is kept up to date; one not downloaded stays metadata.
        try a.write("Documents/big.bin", big.prefix(1 << 20) + Data(repeating: 9, count: 4096))
        try a.write("Documents/note.txt", "small note, edited")
        try await waitUntil("beta to fetch the new version of the downloaded file") {
            (try? Data(contentsOf: URL(fileURLWithPath: b.path("Documents/big.bin"))))?.count == (1 << 20) + 4096
        }
        try await waitUntil("beta to record the note's new size without its content") {
            try await item(b, "Documents/note.txt")?.size == 18
        }
        #expect(!FileManager.default.fileExists(atPath: b.path("Documents/note.txt")))

        // Evicted: the content goes, the metadata stays.
        try await b.withClient { try await $0.evict(container: container, path: "Documents/big.bin") }
        #expect(!FileManager.default.fileExists(atPath: b.path("Documents/big.bin")))
        #expect(try await item(b, "Documents/big.bin")?.downloaded == false)

        // A coordinated read of an evicted file downloads it again before it is granted.
        let reported = Mutex<[DownloadProgressNotice]>([])
        let content = try await b.withClient { client in
            try await FileCoordinator(client: client, container: container).coordinate(
                readingItemAt: "Documents/big.bin", progress: { notice in reported.withLock { $0.append(notice) } }
            ) {
                try Data(contentsOf: URL(fileURLWithPath: b.path("Documents/big.bin")))
            }
        }
        #expect(content.count == (1 << 20) + 4096)
        // Progress is about this file, and the last report says it is all here.
        let reports = reported.withLock { $0 }
        #expect(!reports.isEmpty && reports.allSatisfy { $0.total == Int64((1 << 20) + 4096) })
        #expect(reports.last.map { $0.done == $0.total } == true)

        // The same through the command line.
        #expect(try await AgentProcess.cli(["status", "--socket", b.socket]).contains("on demand, 1 file not downloaded"))
        try await AgentProcess.cli(["download", container.rawValue, "Documents/note.txt", "--socket", b.socket])
        #expect(b.read("Documents/note.txt") == "small note, edited")
        try await waitUntil("alpha to be known to hold the note") {
            await (try? AgentProcess.cli(["evict", container.rawValue, "Documents/note.txt", "--socket", b.socket])) != nil
        }
        #expect(!FileManager.default.fileExists(atPath: b.path("Documents/note.txt")))

        // A deletion on alpha of a file beta never fetched leaves nothing behind.
        try FileManager.default.removeItem(atPath: a.path("Documents/note.txt"))
        try await waitUntil("beta to drop the note") { try await item(b, "Documents/note.txt") == nil }
        #expect(try await b.status().containers[0].notDownloaded == 0)
    }

    @Test func evictingTheOnlyCopyIsRefused() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        b.onDemand = true
        try await cluster.start()
        try await cluster.waitConnected()
        a.stop()
        try b.write("Documents/only-here.txt", "written while alone")
        try await waitUntil("beta to record its file") { try await item(b, "Documents/only-here.txt") != nil }
        await #expect {
            let _: [String: JSONValue] = try await call(b, .itemEvict, ItemPathParams(container: container, path: "Documents/only-here.txt"))
        } throws: { error in
            (error as? RPCError)?.code == .notUploaded
        }
        #expect(b.read("Documents/only-here.txt") == "written while alone")

        // Once alpha holds it, eviction is allowed.
        try await a.startAndWait()
        try await waitUntil("alpha to hold the file") { a.read("Documents/only-here.txt") == "written while alone" }
        try await waitUntil("beta to be allowed to evict") {
            do {
                let _: [String: JSONValue] = try await call(b, .itemEvict, ItemPathParams(container: container, path: "Documents/only-here.txt"))
                return true
            } catch let error as RPCError where error.code == .notUploaded {
                return false
            }
        }
        #expect(!FileManager.default.fileExists(atPath: b.path("Documents/only-here.txt")))
    }

    @Test func anAllContainerRefusesEviction() async throws {
        let directory = try TempDirectory(prefix: "ubiq-evict")
        let agent = try AgentProcess(name: "alpha", in: directory)
        try await agent.createAccount()
        try await agent.startAndWait()
        defer { agent.stop() }
        try agent.write("Documents/a.txt", "a")
        try await waitUntil("the file to be indexed") { try await item(agent, "Documents/a.txt") != nil }
        await #expect {
            let _: [String: JSONValue] = try await call(agent, .itemEvict, ItemPathParams(container: container, path: "Documents/a.txt"))
        } throws: { error in
            (error as? RPCError)?.code == .notOnDemand
        }
    }
}
