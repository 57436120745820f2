import Foundation
import Testing
import UbiqModel
import UbiqTestSupport
import UbiqWire

/// A change that can never be applied is tried less and less often, and logged as a
/// warning once, not every few seconds for as long as it is needed.
@Suite struct RetryTests {
    @Test func aChangeThatKeepsFailingIsTriedLessOftenAndWarnedOfOnce() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        a.extraArguments = ["--log-level", "debug"]
        try await cluster.start()
        let rogue = try await TrustTests.RoguePeer(joining: a, in: cluster.directory)
        try await rogue.hello(a.container, indexID: 61)
        let draining = Task { for try await _ in rogue.connection.frames {} }
        defer { draining.cancel() }

        // Setting aside space for a file larger than the free space fails at once, every time.
        let huge = try TrustTests.RoguePeer.hugeFile("Documents/huge.bin", sequence: 1, device: rogue.identity.deviceID, beyondSpaceOf: a.root)
        var update = Ubiq_Wire_IndexUpdate()
        update.containerID = a.container.rawValue
        update.indexID = 61
        update.lastSequence = 1
        update.items = [huge]
        try await rogue.send(.indexUpdate(update))

        func tries() -> [Substring] {
            a.logText().split(separator: "\n").filter { $0.contains("will retry") && $0.contains("Documents/huge.bin") }
        }
        // The backoff alone takes 15 s before the fifth try; the rest is the agent's work.
        try await waitUntil("alpha to try the huge file a fifth time", timeout: .seconds(180)) { tries().count >= 5 }
        let seen = tries().prefix(5)
        #expect(seen.map { $0.contains(" warning ") } == [true, false, false, false, false], "\(seen)")
        #expect(seen.map { $0.contains("retry=in ") ? String($0.split(separator: "retry=in ")[1].prefix(4)) : "" }
                    == ["1 s ", "2 s ", "4 s ", "8 s ", "16 s"], "\(seen)")
        #expect(try await a.status().containers.first?.failures.map(\.path) == ["Documents/huge.bin"])
        #expect(a.isRunning)
    }
}
