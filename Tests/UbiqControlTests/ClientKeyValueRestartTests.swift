import Testing
import UbiqClient
import UbiqControlAPI

/// `UbiqAgentClient.keyValueChanges` after the agent ends the subscription because the
/// reader fell behind: it subscribes again and names every key, since any may have changed.
@Suite struct ClientKeyValueRestartTests {
    @Test func aSubscriptionThatFellBehindStartsAgainAndNamesEveryKey() async throws {
        try await withServer { context in
            let client = try await UbiqAgentClient.connect(socketPath: context.socketPath)
            let changes = try await client.keyValueChanges(store: Fixtures.store)
            let other = try await UbiqAgentClient.connect(socketPath: context.socketPath)
            let _: Bool = try await other.connection.call("test.kvFallBehind")
            var received: [KeyValueChangeNotice] = []
            for await notice in changes {
                received.append(notice)
                if received.count == 2 { break }
            }
            #expect(received.map(\.keys) == [["level"], ["level", "name"]])
            #expect(received.allSatisfy { $0.reason == "remoteChange" && $0.store == Fixtures.store })
            #expect(context.handler.keyValueSubscribers.withLock { $0.count } == 2)
            await other.close()
            await client.close()
        }
    }
}
