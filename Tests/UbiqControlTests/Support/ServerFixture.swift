import Foundation
import Logging
import UbiqControl

/// A temporary folder with a short path (Unix socket paths are limited to about 100 bytes).
final class TemporaryFolder: Sendable {
    let path: String

    init() throws {
        var template = Array("/tmp/ubiq-ctl-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

let quietLogger = Logger(label: "ubiq.control.test") { _ in SwiftLogNoOpLogHandler() }

/// A running ``ControlServer`` on a socket in a fresh folder, for one test.
struct ServerContext: Sendable {
    let folder: TemporaryFolder
    let socketPath: String
    let server: ControlServer
    let handler: TestHandler
}

/// Starts a server at `<tmp>/run/agent.sock`, runs `body` once it listens, then cancels the
/// server and waits for it to stop. The deadline only keeps a broken server from hanging the
/// run: the CLI tests start four `ubiq` processes in one body, which beside the whole suite's
/// agents took longer than a minute in a CI rehearsal (2026-12-03).
func withServer<T: Sendable>(
    deadline seconds: Double = 180,
    configure: (inout ControlServer.Configuration) -> Void = { _ in },
    _ body: @escaping @Sendable (ServerContext) async throws -> T
) async throws -> T {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    var configuration = ControlServer.Configuration(socketPath: folder.path + "/run/agent.sock")
    configure(&configuration)
    let handler = TestHandler()
    let server = ControlServer(configuration: configuration, handler: handler, logger: quietLogger)
    let context = ServerContext(folder: folder, socketPath: configuration.socketPath, server: server, handler: handler)
    return try await withDeadline(seconds) {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            try await server.waitUntilListening()
            let result = try await body(context)
            group.cancelAll()
            try await group.waitForAll()
            return result
        }
    }
}
