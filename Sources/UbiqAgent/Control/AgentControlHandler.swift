import UbiqControl
import UbiqControlAPI
import UbiqModel

/// Routes the control socket's calls: the account's identity, signing out and in, and a
/// signed-out status are answered at any time; every other method goes to the signed-in
/// account's ``AccountMethods``, and is `unavailable` while signed out.
struct AgentControlHandler: ControlHandler {
    let host: AgentHost
    let webPage: WebPageState

    func handle(method: String, params: JSONValue?, connection: ControlConnection) async throws -> JSONValue {
        guard let known = ControlMethod(rawValue: method) else { throw RPCError.methodNotFound(method) }
        switch known {
        case .accountIdentity:
            return try JSONValue(encoding: await host.identity())
        case .accountLeave:
            let request = try RPCParams.decode(AccountLeaveParams.self, from: params)
            return try JSONValue(encoding: try await host.signOut(keep: request.keep ?? false))
        case .accountCreate:
            return try JSONValue(encoding: try await host.create(name: try RPCParams.decode(AccountCreateParams.self, from: params).name))
        case .accountWatch:
            let current = AccountIdentityChange(identityToken: await host.identity().identityToken)
            await connection.forward(await host.identityChanges(dropFirst: true), as: .accountIdentityChanged) {
                AccountIdentityChange(identityToken: $0)
            }
            return try JSONValue(encoding: current)
        case .uiURL:
            return try JSONValue(encoding: try await webPage.address())
        case .accountJoin:
            let request = try RPCParams.decode(AccountJoinParams.self, from: params)
            return try JSONValue(encoding: try await host.join(bundle: request.bundle, name: request.name, deviceKey: request.deviceKey))
        default:
            guard let session = await host.currentSession() else {
                if known == .agentStatus { return try JSONValue(encoding: signedOutStatus()) }
                throw RPCError(.unavailable, "this workstation is signed out; `ubiq account create` or `ubiq account join` signs it in")
            }
            return try await session.methods.handle(known, params: params, connection: connection)
        }
    }

    private func signedOutStatus() -> AgentStatus {
        AgentStatus(device: .init(id: DeviceID(""), name: host.configuration.deviceName), identityToken: nil,
                    agentVersion: AgentRuntime.version, listen: [], discovery: "signed out", containers: [], peers: [],
                    bytesToFetch: 0, conflicts: 0, bytesSent: 0, bytesReceived: 0)
    }
}
