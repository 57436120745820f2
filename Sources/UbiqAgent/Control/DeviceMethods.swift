import Foundation
import UbiqControlAPI
import UbiqIdentity
import UbiqModel
import UbiqSync
import UbiqTransport
import UbiqWire

/// `devices.list` (the account's devices, replicated between agents), `device.remove` (a
/// revocation signed with the account key, which every agent then honours) and
/// `device.invite` (a one-time code for a new workstation to join with) and `account.rotate`
/// (a new account CA after a removal, sent to the connected peers at once).
struct DeviceMethods: Sendable {
    let devices: AccountDevices
    let engine: SyncEngine
    /// The account, for signing; nil where this device does not hold its key.
    let account: Account?
    let now: @Sendable () -> Int64
    let invites: JoinInvites
    /// The peer listener's addresses, for the invitation's answer.
    let listening: [String]
    /// Where the join listener opens: the host of the first configured listen address.
    let joinHost: String
    /// Whether the new workstation may find the invitation over mDNS.
    let discovery: Bool
    /// Rotates the stored identity and restarts the account's parts.
    let host: AgentHost

    func handle(_ method: ControlMethod, params: JSONValue?) async throws -> JSONValue {
        switch method {
        case .devicesList:
            return try JSONValue(encoding: await list())
        case .deviceRemove:
            return try JSONValue(encoding: try await remove(RPCParams.decode(DeviceRemoveParams.self, from: params).device))
        case .deviceInvite:
            return try JSONValue(encoding: try await invite())
        case .accountRotate:
            return try JSONValue(encoding: try await rotate())
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }

    func list() async -> [DeviceEntry] {
        let registry = await devices.current
        let connected = await engine.connectedDevices
        let me = devices.me
        // This device first, then by name.
        let ordered = registry.devices.values.sorted { ($0.id == me ? 0 : 1, $0.name, $0.id) < ($1.id == me ? 0 : 1, $1.name, $1.id) }
        return ordered.map { record in
            let revocation = registry.revocations[record.id]
            return DeviceEntry(
                id: record.id, name: record.name, address: record.address.isEmpty ? nil : record.address, addresses: record.addresses,
                lastSeen: record.lastSeen > 0 ? Self.date(record.lastSeen) : nil, containers: record.containers,
                connected: connected.contains(record.id), thisDevice: record.id == devices.me, removed: revocation != nil,
                removedAt: revocation.map { Self.date($0.revokedAt) }, removedBy: revocation?.by)
        }
    }

    private func remove(_ device: DeviceID) async throws -> DeviceRemoveResult {
        let registry = await devices.current
        guard registry.devices[device] != nil else {
            throw RPCError(.notFound, "\(device) is not a device of this account that this agent knows; see `ubiq devices`")
        }
        if let known = registry.revocations[device] {
            return DeviceRemoveResult(device: device, removedAt: Self.date(known.revokedAt), wasConnected: false)
        }
        guard let account else {
            throw RPCError(.unavailable, "this device does not hold the account key; remove the device from one that does")
        }
        let wasConnected = await engine.connectedDevices.contains(device)
        let revocation = try account.revoke(device, by: devices.me, at: now())
        do { try await devices.revoke(revocation) } catch {
            throw RPCError(.invalidParams, error.description)
        }
        return DeviceRemoveResult(device: device, removedAt: Self.date(revocation.revokedAt), wasConnected: wasConnected)
    }

    /// Rotates the account, keeping every device not removed whose public key is known here;
    /// sends the rotation over every open session, then restarts with the new certificate.
    private func rotate() async throws -> AccountRotateResult {
        guard account != nil else {
            throw RPCError(.unavailable, "this device does not hold the account key; rotate from one that does")
        }
        let registry = await devices.current
        var keys: [[UInt8]] = []
        var kept: [DeviceID] = []
        var leftOut: [DeviceID] = []
        for record in registry.devices.values.sorted(by: { $0.id < $1.id })
        where registry.revocations[record.id] == nil && record.id != devices.me {
            if record.publicKey.isEmpty {
                leftOut.append(record.id)
            } else {
                keys.append(record.publicKey)
                kept.append(record.id)
            }
        }
        let rotation: AccountRotation
        let log: [AccountRotation]
        do {
            rotation = try await host.rotate(keeping: keys, by: devices.me)
            log = try host.store.rotations()
        } catch {
            throw RPCError(.internalError, "the account could not be rotated: \(error)")
        }
        let sent = await engine.sendToAll(Ubiq_Wire_Envelope(.accountRotations(AccountRotationMapping.message(log))))
        await host.restartSoon()
        return AccountRotateResult(generation: rotation.generation, kept: [devices.me] + kept, sentTo: sent, leftOut: leftOut)
    }

    private func invite() async throws -> DeviceInviteResult {
        guard account != nil else {
            throw RPCError(.unavailable, "this device does not hold the account key; invite from one that does")
        }
        do {
            let opened = try await invites.open(host: joinHost)
            return DeviceInviteResult(code: opened.code.description, port: opened.port, listen: listening, expiresAt: opened.expires,
                                      host: IdentityStore.hostName,
                                      discovery: discovery)
        } catch let error as RPCError {
            throw error
        } catch {
            throw RPCError(.internalError, "could not open the invitation's listener on \(joinHost): \(error)")
        }
    }

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
