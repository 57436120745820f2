import Testing
import UbiqClient
import UbiqControlAPI

/// `UbiqAgentClient.presentedItemEvents` after the agent ends the presenter because the
/// reader fell behind: it registers again where the item moved to and says it may have
/// changed; notices for other presenters on the connection are not its own.
@Suite struct ClientPresenterRestartTests {
    @Test func aPresenterThatFellBehindRegistersAgainWhereItsItemNowIs() async throws {
        try await withServer { context in
            let client = try await UbiqAgentClient.connect(socketPath: context.socketPath)
            let events = try await client.presentedItemEvents(container: Fixtures.container, path: "Documents/draft.txt")
            let other = try await UbiqAgentClient.connect(socketPath: context.socketPath)
            let _: Bool = try await other.connection.call("test.presenterFallBehind")
            var heard: [PresenterNotice] = []
            for await notice in events {
                heard.append(notice)
                if heard.count == 2 { break }
            }
            #expect(heard == [.didMove(from: "Documents/draft.txt", to: "Documents/moved.txt"),
                              .didChange(path: "Documents/moved.txt", origin: "unknown")])
            #expect(context.handler.presenters.withLock { $0.map(\.path) } == ["Documents/draft.txt", "Documents/moved.txt"])
            await other.close()
            await client.close()
        }
    }
}
