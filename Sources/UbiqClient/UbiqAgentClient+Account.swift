import UbiqControlAPI

/// Signing a running agent out and in.
extension UbiqAgentClient {
    /// Signs the workstation out: syncing stops and the containers' folders are moved aside
    /// (left in place, bound to the old account, with `keep`).
    public func leaveAccount(keep: Bool = false) async throws -> AccountLeaveResult {
        try await connection.call(ControlMethod.accountLeave.rawValue, params: AccountLeaveParams(keep: keep))
    }

    /// Signs a signed-out agent in to a new account; returns once it syncs.
    public func createAccount(name: String? = nil) async throws -> AccountIdentity {
        try await connection.call(ControlMethod.accountCreate.rawValue, params: AccountCreateParams(name: name))
    }

    /// Signs a signed-out agent in to the account in `bundle` (the bundle file's text), with
    /// `deviceKey` (PEM) as its device key where a join by code showed it to the inviter.
    public func joinAccount(bundle: String, name: String? = nil, deviceKey: String? = nil) async throws -> AccountIdentity {
        try await connection.call(ControlMethod.accountJoin.rawValue, params: AccountJoinParams(bundle: bundle, name: name, deviceKey: deviceKey))
    }
}
