import Foundation
import Testing
import UbiqClient
import UbiqControlAPI

@Suite struct UbiqConnectionTests {
    @Test func aMissingSocketSaysTheAgentIsNotRunning() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/agent.sock"
        await #expect { _ = try await UbiqConnection.connect(socketPath: path) } throws: { error in
            guard let error = error as? UbiqClientError else { return false }
            return error.code == .agentNotRunning && error.message.contains("is ubiqd running?") && error.message.contains(path)
        }
    }

    @Test func aTooLongPathIsReported() async throws {
        let path = "/tmp/" + String(repeating: "x", count: 200) + "/agent.sock"
        await #expect { _ = try await UbiqConnection.connect(socketPath: path) } throws: {
            ($0 as? UbiqClientError)?.code == .invalidSocketPath
        }
    }

    @Test func pendingCallsFailWhenTheServerStops() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/agent.sock"
        let server = ControlServerHarness(socketPath: path)
        try await withDeadline {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.server.run() }
                try await server.server.waitUntilListening()
                let connection = try await UbiqConnection.connect(socketPath: path)
                group.cancelAll()
                try await group.waitForAll()
                await #expect { try await connection.call("test.wait") } throws: { ($0 as? UbiqClientError)?.code == .connectionClosed }
                await connection.close()
            }
        }
    }

    @Test func callsAfterCloseFail() async throws {
        try await withServer { context throws in
            let connection = try await UbiqConnection.connect(socketPath: context.socketPath)
            await connection.close()
            await #expect { try await connection.call("agent.status") } throws: { ($0 as? UbiqClientError)?.code == .connectionClosed }
            var iterator = connection.notifications.makeAsyncIterator()
            #expect(await iterator.next() == nil)
        }
    }

    @Test func cancellingACallLeavesTheConnectionUsable() async throws {
        try await withServer { context throws in
            let connection = try await UbiqConnection.connect(socketPath: context.socketPath)
            let waiting = Task { try await connection.call("test.wait") }
            await context.handler.waitStarted.wait()
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            #expect(try await connection.call("test.echo", params: ["ok": true]) == ["ok": true])
            #expect(try await connection.call("test.release") == true)
            await connection.close()
        }
    }
}

import UbiqControl

/// A server whose lifetime the test controls directly.
struct ControlServerHarness {
    let server: ControlServer

    init(socketPath: String) {
        server = ControlServer(configuration: .init(socketPath: socketPath), handler: TestHandler(), logger: quietLogger)
    }
}
