import Foundation
import Testing
import UbiqControl
import UbiqControlAPI

/// The other-user checks need root (to act as `nobody`) and `setpriv` and `socat`.
@Suite struct PeerCredentialTests {
    static let canSwitchUser = getuid() == 0 && programExists("setpriv") && programExists("socat")
    static let request = #"{"jsonrpc":"2.0","id":1,"method":"account.identity"}"# + "\n"

    static func asNobody(_ socketPath: String) async throws -> (status: Int32, output: String) {
        try await runProcess(
            ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "socat", "-t", "5", "-", "UNIX-CONNECT:" + socketPath],
            input: request)
    }

    @Test func theOwnUserIsServed() async throws {
        guard programExists("socat") else {
            print("skipped: socat is not installed")
            return
        }
        try await withServer { context throws in
            let (status, output) = try await runProcess(["socat", "-t", "5", "-", "UNIX-CONNECT:" + context.socketPath], input: Self.request)
            #expect(status == 0)
            let response = try JSONValue(parsing: output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(try response["result"]?.decode(AccountIdentity.self) == Fixtures.identity)
        }
    }

    @Test(.enabled(if: canSwitchUser, "needs root, setpriv and socat to connect as another user"))
    func anotherUserIsRefusedEvenThroughAnOpenSocket() async throws {
        try await withServer { context throws in
            // Open the file-system gates so only the SO_PEERCRED check stands in the way.
            #expect(chmod(context.folder.path, 0o755) == 0)
            #expect(chmod(context.folder.path + "/run", 0o755) == 0)
            #expect(chmod(context.socketPath, 0o777) == 0)
            let (_, output) = try await Self.asNobody(context.socketPath)
            let response = try JSONValue(parsing: output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(response["error"]?["code"] == .integer(Int64(RPCError.Code.permissionDenied.rawValue)))
            #expect(response["result"] == nil)
        }
    }

    @Test(.enabled(if: canSwitchUser, "needs root, setpriv and socat to connect as another user"))
    func anotherUserCannotReachThePrivateSocket() async throws {
        try await withServer { context throws in
            #expect(chmod(context.folder.path, 0o755) == 0)
            let (status, output) = try await Self.asNobody(context.socketPath)
            #expect(status != 0)
            #expect(output.isEmpty)
        }
    }
}
