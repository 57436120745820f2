import Foundation
import Synchronization
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// File coordination and presenters against real agents: leases hold back incoming changes,
/// coordinated reads never see a torn file, presenters follow renames made on another
/// device, and a killed client's lease goes with it.
@Suite(.serialized) struct CoordinationTests {
    let container = AgentProcess.defaultContainer

    @Test func anIncomingChangeWaitsForAClientsWriteLeaseAndNoReadIsTorn() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let path = "Documents/report.bin"
        let old = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let new = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })
        try a.write(path, old)
        try await waitUntil("beta to have the first version") { (try? Data(contentsOf: URL(fileURLWithPath: b.path(path)))) == old }

        // A reader on beta keeps reading under read leases; every read must be whole.
        let reads = Mutex<(count: Int, torn: Int)>((0, 0))
        let reader = Task {
            let client = try await UbiqAgentClient.connect(socketPath: b.socket)
            defer { Task { await client.close() } }
            let coordinator = FileCoordinator(client: client, container: container)
            while !Task.isCancelled {
                let data = try await coordinator.coordinate(readingItemAt: path) { try? Data(contentsOf: URL(fileURLWithPath: b.path(path))) }
                reads.withLock { $0.count += 1; if data != old && data != new { $0.torn += 1 } }
            }
        }
        defer { reader.cancel() }

        let writer = try await UbiqAgentClient.connect(socketPath: b.socket)
        let lease: CoordinateAcquireResult = try await writer.connection.call(
            ControlMethod.coordinateAcquire.rawValue,
            params: CoordinateAcquireParams(container: container, items: [.init(path: path, access: "write")]))
        let readsBefore = reads.withLock { $0.count }
        try a.write(path, new)
        try await waitUntil("beta to learn of the change") { try await b.status().containers[0].needItems == 1 }
        // Held back: the write lease is still ours, so beta's file is untouched, and the reader waits.
        #expect((try? Data(contentsOf: URL(fileURLWithPath: b.path(path)))) == old)
        #expect(reads.withLock { $0.count } <= readsBefore + 1)
        _ = try await writer.connection.call(ControlMethod.coordinateRelease.rawValue, params: ["lease": .integer(Int64(lease.lease))])
        try await waitUntil("the change to land after the release") {
            (try? Data(contentsOf: URL(fileURLWithPath: b.path(path)))) == new
        }
        try await waitUntil("the reader to read on") { reads.withLock { $0.count } > readsBefore + 3 }
        reader.cancel()
        #expect(reads.withLock { $0.torn } == 0)
        await writer.close()
    }

    @Test func aPresenterOnBetaFollowsARenameOnAlpha() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        try a.write("Documents/draft.txt", "chapter one")
        try await waitForConvergence([a, b]) { $0["Documents/draft.txt"] != nil }

        let client = try await UbiqAgentClient.connect(socketPath: b.socket)
        let events = try await client.presentedItemEvents(container: container, path: "Documents/draft.txt")
        let heard = Mutex<[PresenterNotice]>([])
        let listener = Task { for await event in events { heard.withLock { $0.append(event) } } }
        defer { listener.cancel() }

        try FileManager.default.moveItem(atPath: a.path("Documents/draft.txt"), toPath: a.path("Documents/final.txt"))
        try await waitUntil("beta's presenter to hear of the move") {
            heard.withLock { $0.contains(.didMove(from: "Documents/draft.txt", to: "Documents/final.txt")) }
        }
        // It follows the document: an edit under the new name reaches it too.
        try a.write("Documents/final.txt", "chapter one, revised")
        try await waitUntil("beta's presenter to hear of the edit") {
            heard.withLock { $0.contains(.didChange(path: "Documents/final.txt", origin: "remote")) }
        }
        try FileManager.default.removeItem(atPath: a.path("Documents/final.txt"))
        try await waitUntil("beta's presenter to hear of the deletion") {
            heard.withLock { $0.contains(.didDelete(path: "Documents/final.txt")) }
        }
        await client.close()
    }

    @Test func theWatchCommandPrintsChangesAsTheyHappen() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await cluster.start()
        try await cluster.waitConnected()
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: AgentProcess.binDirectory + "/ubiq")
        watch.arguments = ["watch", "--socket", b.socket, "--json"]
        let output = Pipe()
        watch.standardOutput = output
        let printed = Mutex("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            printed.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try watch.run()
        defer { watch.terminate(); watch.waitUntilExit() }
        // Subscribed once an event for a file written after start shows; keep writing until then.
        var round = 0
        try await waitUntil("ubiq watch on beta to print alpha's new document") {
            round += 1
            try a.write("Documents/watched-\(round).txt", "hello")
            return printed.withLock { $0.contains(#""path":"Documents/watched-"#) }
        }
        let line = try #require(printed.withLock { $0 }.split(separator: "\n").first { $0.contains("watched-") })
        let event = try JSONValue(parsing: String(line)).decode(ItemEvent.self)
        #expect(event.origin == "remote" && event.change == "changed" && event.kind == .file)
    }

    @Test func aKilledClientsLeaseIsFreed() async throws {
        // The client is a separate process that can be killed; CI installs socat.
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/socat"),
                     "socat is needed to stand for a client process: run scripts/install-deps.sh")
        let directory = try TempDirectory(prefix: "ubiq-lease")
        let agent = try AgentProcess(name: "alpha", in: directory)
        try await agent.createAccount()
        try await agent.startAndWait()
        defer { agent.stop() }

        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["socat", "-", "UNIX-CONNECT:" + agent.socket]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        let request = #"{"jsonrpc":"2.0","id":1,"method":"coordinate.acquire","params":{"container":"\#(container)","path":"Documents/a.txt","access":"write"}}"#
        input.fileHandleForWriting.write(Data((request + "\n").utf8))
        let answer = output.fileHandleForReading.availableData
        #expect(String(decoding: answer, as: UTF8.self).contains("\"lease\""))

        func tryWrite(timeout: Double) async throws -> Bool {
            try await agent.withClient { client in
                do {
                    try await FileCoordinator(client: client, container: container)
                        .coordinate(writingItemAt: "Documents/a.txt", timeout: .milliseconds(Int64(timeout * 1000))) {}
                    return true
                } catch let error as RPCError where error.code == .leaseTimeout {
                    return false
                }
            }
        }
        #expect(try await tryWrite(timeout: 0.2) == false)
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        #expect(try await tryWrite(timeout: 10))
    }

    @Test func tenThousandBadLinesLeaveTheAgentAnswering() async throws {
        let directory = try TempDirectory(prefix: "ubiq-fuzz")
        let agent = try AgentProcess(name: "alpha", in: directory)
        try await agent.createAccount()
        try await agent.startAndWait()
        defer { agent.stop() }
        var generator = SplitMix64(seed: 20261122)
        let templates = [
            #"{"jsonrpc":"2.0","id":%d,"method":"kv.get","params":{"store":5}}"#,
            #"{"jsonrpc":"2.0","id":%d,"method":"coordinate.acquire","params":{"container":"x","path":"../../etc","access":"write"}}"#,
            #"{"jsonrpc":"2.0","id":%d,"method":"presenter.register","params":{"container":"TEAMID.com.example.notes","path":"/abs"}}"#,
            #"{"jsonrpc":"2.0","id":%d,"method":"no.such.method"}"#,
            #"{"jsonrpc":"1.0","id":%d}"#,
            #"{"jsonrpc":"2.0","id":%d,"method":"items.list","params":[1,2,3]}"#,
            #"[{"jsonrpc":"2.0","id":%d}]"#,
            #"{"jsonrpc":"2.0","id":%d,"method":"versions.resolve","params":{"container":"TEAMID.com.example.notes","path":"Documents","keep":7}}"#,
        ]
        var lines: [String] = []
        for i in 0..<10_000 {
            switch i % 3 {
            case 0:
                lines.append(String(format: templates[Int.random(in: 0..<templates.count, using: &generator)], i))
            case 1:
                let valid = String(format: templates[Int.random(in: 0..<templates.count, using: &generator)], i)
                lines.append(String(valid.prefix(Int.random(in: 0..<valid.count, using: &generator))))
            default:
                let bytes = (0..<Int.random(in: 1..<200, using: &generator)).map { _ in UInt8.random(in: 0x20...0x7E, using: &generator) }
                lines.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        let client = try await RawLineClient(socketPath: agent.socket)
        let answers = Task {
            var errors = 0
            while let line = try await client.readJSON() {
                if line["id"] == "final" { return (errors, line) }
                if line["error"] != nil { errors += 1 }
            }
            return (errors, JSONValue.null)
        }
        for line in lines { try await client.send(line: line) }
        // The same connection still answers a real request correctly, and so does a new one.
        try await client.send(line: #"{"jsonrpc":"2.0","id":"final","method":"agent.status"}"#)
        let (errors, final) = try await answers.value
        #expect(errors >= 9_000)
        #expect(try final["result"]?.decode(AgentStatus.self).containers.first?.id == container)
        await client.close()
        #expect(try await agent.status().containers.first?.id == container)
        #expect(agent.isRunning)
    }
}
