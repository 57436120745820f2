import Foundation
import Testing
import UbiqChunking
import UbiqTestSupport
import UbiqWire

/// A peer that asks for chunks and never reads the answers makes the agent hold at most its
/// serving budget of chunk bytes, not the bytes of every request; a peer that keeps asking
/// past the limit of waiting requests is disconnected; the agent answers its clients
/// throughout.
@Suite struct ServingBudgetTests {
    @Test func aPeerThatAsksAndNeverReadsGetsABoundedShare() async throws {
        let (cluster, rogue) = try await TrustTests.pairWithRogue(indexID: 71)
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        // The rogue never reads, so it cannot answer alpha's pings: it says it is alive on
        // its own, or alpha drops it as silent after three ping intervals (6 s), which the
        // waits below can pass on a busy machine (alpha indexing the file, say).
        let alive = Task {
            while !Task.isCancelled {
                try await rogue.send(.ping(Ubiq_Wire_Ping()))
                try await Task.sleep(for: .seconds(1))
            }
        }
        defer { alive.cancel() }
        let content = SeededBytes.data(8 << 20, seed: 71)
        try a.write("Documents/served.bin", content)
        let chunks = FileChunker().chunks(of: content)
        // The rogue computes the file's chunks itself, so it needs to read nothing.
        try await waitUntil("alpha to index the file") {
            try await a.status().containers.first?.files == 1
        }

        // Each request asks for the longest run the agent serves (4 MiB and then some).
        func request(_ id: UInt64, from index: Int) -> Ubiq_Wire_Envelope.OneOf_Message {
            var request = Ubiq_Wire_ChunkRequest()
            request.id = id
            request.containerID = a.container.rawValue
            request.path = "Documents/served.bin"
            let first = chunks[index % chunks.count]
            request.offset = first.offset
            request.size = first.size
            request.hash = Data(first.hash.bytes)
            request.following = chunks[(index % chunks.count + 1)...].prefix(80).map { chunk in
                var entry = Ubiq_Wire_ChunkEntry()
                entry.size = chunk.size
                entry.hash = Data(chunk.hash.bytes)
                return entry
            }
            return .chunkRequest(request)
        }
        let asked = 2_000
        for id in 0..<asked { try await rogue.send(request(UInt64(id + 1), from: id)) }
        // Every request read by alpha (the ones its serving tasks answer into a socket nobody
        // reads, and those queued behind them), then a change from beta applied after them.
        let sent = UInt64(rogue.connection.bytesSent)
        try await waitUntil("alpha to read every request") {
            try await a.status().peers.first { $0.name == "rogue" }.map { UInt64($0.bytesReceived) >= sent } ?? false
        }
        try cluster.agents[1].write("Documents/after.txt", "after the requests")
        try await waitUntil("beta's file on alpha") { a.read("Documents/after.txt") == "after the requests" }
        let peak = try #require(LoadTests.peakMemoryMiB(stateFolder: a.state))
        print("a peer asking \(asked) runs of 4 MiB without reading: alpha's peak memory \(peak) MiB")
        // Without the budget alpha reads every run (8 GiB) and is killed. With it, the chunks
        // read and not yet handed to the connection stay within 16 MiB for all peers; each
        // answer is then copied a few times on its way to the socket (frame, TLS, the
        // connection's write buffer), so alpha's peak is some 60 MiB at rest plus 80–170 MiB
        // (142–227 MiB measured): bounded, not growing with the requests.
        #expect(peak < 320, "alpha held the chunks of the requests it could not send: \(peak) MiB")

        // Past the limit of waiting requests the connection ends; the agent goes on. Alpha
        // may close it while the rogue is still sending: the send then fails, as meant. The
        // rogue still reads nothing, so alpha's Close frame cannot leave; alpha ends the
        // session all the same.
        let flood = Task {
            for id in asked..<(asked + 4_200) {
                do { try await rogue.send(request(UInt64(id + 1), from: id)) } catch { break }
            }
        }
        defer { flood.cancel() }
        try await waitUntil("alpha to drop the flooding peer that reads nothing") {
            try await a.status().peers.contains { $0.name == "rogue" && $0.connected } == false
        }
        try await rogue.waitUntilClosed("alpha to close the flooding connection")
        #expect(a.logText().contains("requests wait to be answered"))
        #expect(a.isRunning)
    }
}
