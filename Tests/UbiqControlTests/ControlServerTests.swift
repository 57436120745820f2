import UbiqTestSupport
import Foundation
import Testing
import UbiqClient
import UbiqControl
import UbiqControlAPI

@Suite struct ControlServerTests {
    @Test func typedCallsRoundTrip() async throws {
        try await withServer { context throws in
            let client = try await UbiqAgentClient.connect(socketPath: context.socketPath)
            #expect(try await client.status() == Fixtures.status)
            #expect(try await client.peers() == Fixtures.peers)
            #expect(try await client.identity() == Fixtures.identity)
            #expect(try await client.items(container: Fixtures.container) == Fixtures.items(under: nil))
            #expect(try await client.items(container: Fixtures.container, path: "Documents") == Fixtures.items(under: "Documents"))
            #expect(try await client.versions(container: Fixtures.container, path: "notes.txt") == Fixtures.versions(of: "notes.txt"))
            #expect(try await client.resolve(container: Fixtures.container, path: "notes.txt", keep: .current)
                == VersionsResolveResult(path: "notes.txt", kept: "AAAAAAAA-3"))
            #expect(try await client.resolve(container: Fixtures.container, path: "notes.txt", keep: .version(Fixtures.conflictID))
                == VersionsResolveResult(path: "notes.txt", kept: Fixtures.conflictID))
            await #expect(throws: RPCError(.conflictNotFound, "no conflict version nope of notes.txt")) {
                try await client.resolve(container: Fixtures.container, path: "notes.txt", keep: .version("nope"))
            }
            await client.close()
        }
    }

    @Test func resultsUseTheDocumentedJSONShapes() async throws {
        try await withServer { context throws in
            try await UbiqConnection.withConnection(socketPath: context.socketPath) { connection throws in
                let items = try await connection.call("items.list", params: ["container": "TEAM123.com.example.notes"])
                let file = try #require(items.arrayValue?[1].objectValue)
                #expect(Set(file.keys) == ["path", "kind", "size", "mtime", "executable", "version", "modifiedBy", "conflicts", "downloaded"])
                #expect(file["mtime"] == "2023-11-14T22:13:20.500Z")
                #expect(file["kind"] == "file")
                #expect(file["version"] == "{AAAAAAA:3,EEEEEEE:2}")
                let status = try await connection.call("agent.status")
                #expect(status["device"]?["id"] == .string(Fixtures.deviceA.rawValue))
                #expect(status["containers"]?.arrayValue?.first?["caseConflicts"] == ["Documents/readme.txt"])
                let resolve = try await connection.call("versions.resolve", params: [
                    "container": "TEAM123.com.example.notes", "path": "a", "keep": "current",
                ])
                #expect(resolve == ["path": "a", "kept": "AAAAAAAA-3"])
            }
        }
    }

    @Test func errorsCarryTheirCodes() async throws {
        try await withServer { context throws in
            try await UbiqConnection.withConnection(socketPath: context.socketPath) { connection throws in
                await #expect { try await connection.call("no.such.method") } throws: { ($0 as? RPCError)?.code == .methodNotFound }
                await #expect { try await connection.call("test.fail") } throws: { error in
                    (error as? RPCError) == RPCError(.internalError, "the disk caught fire")
                }
                await #expect { try await connection.call("items.list", params: ["container": "not a container"]) } throws: {
                    ($0 as? RPCError)?.code == .invalidParams
                }
                await #expect { try await connection.call("versions.list", params: ["container": "A.b"]) } throws: { error in
                    guard let error = error as? RPCError else { return false }
                    return error.code == .invalidParams && error.message.contains("'path' is missing")
                }
                // Messages name the field, and say that params are named, not positional.
                await #expect { try await connection.call("items.list", params: .array([.string("A.b")])) } throws: { error in
                    guard let error = error as? RPCError else { return false }
                    return error.code == .invalidParams && error.message.contains("not an array")
                }
                await #expect { try await connection.call("versions.list", params: ["container": "A.b", "path": 7]) } throws: { error in
                    guard let error = error as? RPCError else { return false }
                    return error.code == .invalidParams && error.message.contains("'path' must be a string")
                }
                #expect(try await connection.call("test.echo", params: ["x": 1.0]) == ["x": 1.0])
            }
        }
    }

    @Test func requestsOnOneConnectionRunConcurrently() async throws {
        try await withServer { context throws in
            try await UbiqConnection.withConnection(socketPath: context.socketPath) { connection throws in
                async let waiting = connection.call("test.wait")
                #expect(try await connection.call("test.release") == true)
                #expect(try await waiting == "released")
            }
        }
    }

    @Test func notificationsReachTheClientInOrder() async throws {
        try await withServer { context throws in
            try await UbiqConnection.withConnection(socketPath: context.socketPath) { connection throws in
                #expect(try await connection.call("test.notify", params: ["count": 50]) == 50)
                var received: [JSONValue] = []
                for await notification in connection.notifications {
                    #expect(notification.method == "test.tick")
                    received.append(notification.params?["n"] ?? .null)
                    if received.count == 50 { break }
                }
                #expect(received == (0..<50).map { .integer($0) })
            }
        }
    }

    @Test func cleanupsRunWhenTheClientDisconnects() async throws {
        try await withServer { context throws in
            let connection = try await UbiqConnection.connect(socketPath: context.socketPath)
            #expect(try await connection.call("test.onClose") == true)
            #expect(!context.handler.cleanedUp.isOpen)
            await connection.close()
            await context.handler.cleanedUp.wait()
        }
    }

    @Test func answersRequestsAfterTheClientStopsSending() async throws {
        try await withServer { context throws in
            let client = try await RawLineClient(socketPath: context.socketPath)
            try await client.send(line: #"{"jsonrpc":"2.0","id":1,"method":"test.wait"}"#)
            try await client.send(line: #"{"jsonrpc":"2.0","id":2,"method":"test.release"}"#)
            try await client.finishSending()
            var ids: Set<JSONValue> = []
            while let response = try await client.readJSON() { ids.insert(response["id"] ?? .null) }
            #expect(ids == [1, 2])
            await client.close()
        }
    }

    @Test func socketIsPrivateAndRemovedOnStop() async throws {
        let path = try await withServer { context throws in
            var info = stat()
            #expect(stat(context.socketPath, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(info.st_mode & S_IFMT == S_IFSOCK)
            #expect(stat(context.folder.path + "/run", &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700)
            return context.socketPath
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func refusesToTakeOverALiveAgentsSocket() async throws {
        try await withServer { context throws in
            let second = ControlServer(configuration: .init(socketPath: context.socketPath), handler: TestHandler(), logger: quietLogger)
            await #expect { try await second.run() } throws: { ($0 as? ControlServerError)?.code == .alreadyRunning }
            await #expect { try await second.waitUntilListening() } throws: { ($0 as? ControlServerError)?.code == .alreadyRunning }
            let client = try await UbiqAgentClient.connect(socketPath: context.socketPath)
            #expect(try await client.identity() == Fixtures.identity)
            await client.close()
        }
    }

    @Test func replacesAStaleSocketAndRefusesOtherFiles() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path + "/agent.sock"
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (offset, byte) in path.utf8.enumerated() { raw[offset] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(stale)

        let server = ControlServer(configuration: .init(socketPath: path), handler: TestHandler(), logger: quietLogger)
        // A generous deadline: in the full suite on two cores this once took over 20 s.
        try await withDeadline(120) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.run() }
                try await server.waitUntilListening()
                let client = try await UbiqAgentClient.connect(socketPath: path)
                #expect(try await client.identity() == Fixtures.identity)
                await client.close()
                group.cancelAll()
            }
        }

        _ = FileManager.default.createFile(atPath: path, contents: Data("not a socket".utf8))
        let blocked = ControlServer(configuration: .init(socketPath: path), handler: TestHandler(), logger: quietLogger)
        await #expect { try await blocked.run() } throws: { ($0 as? ControlServerError)?.code == .pathOccupied }
    }

    @Test func refusesAFolderOfAnotherUser() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let foreign: String
        if getuid() == 0 {
            foreign = folder.path + "/theirs"
            try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false)
            #expect(chown(foreign, 65534, 65534) == 0)
        } else {
            foreign = "/tmp"
        }
        let server = ControlServer(configuration: .init(socketPath: foreign + "/agent.sock"), handler: TestHandler(), logger: quietLogger)
        await #expect { try await server.run() } throws: { ($0 as? ControlServerError)?.code == .folderNotOwned }
    }
}
