import Foundation
import Testing
import UbiqTestSupport

/// A device of the account that completes TLS and then says nothing is dropped once the
/// hello timeout (10 s) has passed, and the agent goes on.
@Suite struct HelloTimeoutTests {
    @Test func aPeerThatNeverSaysHelloIsDropped() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        // From before the connection: the agent's timer starts once TLS is done, and under
        // load the connect can return a second after that.
        let clock = ContinuousClock()
        let start = clock.now
        let rogue = try await TrustTests.RoguePeer(joining: a, in: cluster.directory)
        try await rogue.waitUntilClosed("alpha to drop a peer that never says hello", timeout: .seconds(40))
        let waited = clock.now - start
        #expect(waited >= .seconds(9), "dropped after \(waited), before the hello timeout")
        #expect(a.logText().contains("peer sent no hello in time"))
        #expect(a.isRunning)
    }
}
