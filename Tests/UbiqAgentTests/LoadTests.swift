import Foundation
import Testing
import UbiqControlAPI
import UbiqTestSupport

/// Twenty clients on one agent's control socket, each subscribed to events, writing files
/// and asking for status, while a large file arrives from a peer: every request is answered,
/// every subscriber that keeps reading hears of every file, and memory stays bounded.
@Suite(.serialized) struct LoadTests {
    static let clients = 20
    static let filesEach = 5
    static let linkBytesPerSecond = 32 << 20

    /// The agent's peak resident memory in MiB (`VmHWM`), found by its state folder.
    static func peakMemoryMiB(stateFolder: String) -> Int? {
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(entry) != nil {
            guard let command = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                  String(decoding: command, as: UTF8.self).contains(stateFolder),
                  let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { continue }
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 / 1024 }
        }
        return nil
    }

    @Test func twentyClientsDuringALargeTransfer() async throws {
        let cluster = try await LiveCluster(["alpha", "beta"])
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        defer { cluster.stopAll() }
        // Beta reaches alpha through a link of 32 MiB/s, so the transfer lasts at least four
        // seconds however fast the machine is, and every client asks many times during it.
        let link = try await cluster.startThroughSlowLink(bytesPerSecond: Self.linkBytesPerSecond)
        defer { link.close() }

        var subscribers: [RawLineClient] = []
        for _ in 0..<Self.clients {
            let client = try await RawLineClient(socketPath: b.socket)
            try await client.send(line: #"{"jsonrpc":"2.0","id":0,"method":"events.subscribe"}"#)
            _ = try await client.readJSON()
            subscribers.append(client)
        }
        // Made beside the container and renamed into it once every client is asking for
        // status, so the transfer happens while they ask, however busy the machine is.
        let staged = a.state + "/large.bin"
        try SeededBytes.data(128 << 20, seed: 9).write(to: URL(fileURLWithPath: staged))
        let large = try TreeDigest.fileHash(staged)
        let (firstAnswers, firstAnswer) = AsyncStream<Void>.makeStream()

        let expected = Set((0..<Self.clients).flatMap { client in (0..<Self.filesEach).map { "Documents/c\(client)/f\($0).txt" } })
            .union(["Documents/large.bin"])
        let largeArrived: @Sendable () -> Bool = {
            ((try? FileManager.default.attributesOfItem(atPath: b.path("Documents/large.bin"))[.size]) as? Int) == 128 << 20
        }
        // Each client writes its files, then asks for status, one request at a time, until the
        // large file is in place; it reads its events all along.
        let answeredDuringTransfer = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                var asking = 0
                for await _ in firstAnswers {
                    asking += 1
                    if asking == Self.clients { break }
                }
                try FileManager.default.moveItem(atPath: staged, toPath: a.path("Documents/large.bin"))
                return 0
            }
            for (index, client) in subscribers.enumerated() {
                group.addTask {
                    var heard: Set<String> = []
                    var duringTransfer = 0
                    // A client that gives up before its first answer must not hold back the move.
                    var signalled = false
                    defer { if !signalled { firstAnswer.yield() } }
                    for file in 0..<Self.filesEach {
                        try b.write("Documents/c\(index)/f\(file).txt", "client \(index), file \(file)")
                    }
                    let deadline = ContinuousClock.now + .seconds(120)
                    var request = 0
                    while !largeArrived() || !expected.isSubset(of: heard) {
                        request += 1
                        try await client.send(line: #"{"jsonrpc":"2.0","id":\#(request),"method":"agent.status"}"#)
                        var answered = false
                        while !answered {
                            guard ContinuousClock.now < deadline, let line = try await client.readJSON() else {
                                Issue.record("client \(index): request \(request) unanswered, missing events for \(expected.subtracting(heard).sorted().prefix(5))")
                                return duringTransfer
                            }
                            if line["id"] == .integer(Int64(request)) {
                                answered = true
                                if request == 1 {
                                    firstAnswer.yield()
                                    signalled = true
                                }
                                let transfers = try line["result"]?.decode(AgentStatus.self).containers.first?.transfers ?? []
                                if transfers.contains(where: { $0.path == "Documents/large.bin" }) { duringTransfer += 1 }
                            }
                            if line["method"] == "events.item", let path = line["params"]?["path"]?.stringValue { heard.insert(path) }
                            #expect(line["method"] != "subscription.fellBehind", "client \(index) fell behind while reading")
                        }
                    }
                    return duringTransfer
                }
            }
            return try await group.reduce(0, +)
        }
        print("status answers while the large file was in transfer: \(answeredDuringTransfer)")
        #expect(answeredDuringTransfer > 0, "no request was answered during the transfer")
        try await waitForConvergence([a, b], timeout: .seconds(120), "the large file and every client's files on both") {
            $0["Documents/large.bin"] == large && expected.isSubset(of: Set($0.keys))
        }
        for client in subscribers { await client.close() }
        let peak = try #require(Self.peakMemoryMiB(stateFolder: b.state))
        print("beta's peak memory with \(Self.clients) clients during a 128 MiB transfer: \(peak) MiB")
        // Less than the file: nothing holds a transfer in memory whole. (About 60 MiB here.)
        #expect(peak < 100, "beta's peak memory \(peak) MiB")
    }
}
