import UbiqControlAPI
import UbiqModel

/// The account's devices: listing them, and removing a lost one.
extension UbiqAgentClient {
    /// Every device of the account this agent knows, this one first.
    public func devices() async throws -> [DeviceEntry] {
        try await connection.call(ControlMethod.devicesList.rawValue)
    }

    /// Removes `device` from the account: every agent refuses its connections from then on.
    public func removeDevice(_ device: DeviceID) async throws -> DeviceRemoveResult {
        try await connection.call(ControlMethod.deviceRemove.rawValue, params: DeviceRemoveParams(device: device))
    }

    /// Rotates the account: a new CA, new certificates for every device not removed, and the
    /// old CA trusted only to hand the rotation to devices that missed it.
    public func rotateAccount() async throws -> AccountRotateResult {
        try await connection.call(ControlMethod.accountRotate.rawValue)
    }

    /// Opens an invitation: a one-time code another workstation joins the account with.
    public func inviteDevice() async throws -> DeviceInviteResult {
        try await connection.call(ControlMethod.deviceInvite.rawValue)
    }
}
