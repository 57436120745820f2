import Logging
import UbiqIdentity
import UbiqIndex
import UbiqModel

/// Keeps the account's removals across a rotation. Revocations are checked with the current
/// CA's key, so those signed with a key a rotation replaced are signed again with the new one
/// at the first start after it, except those of devices the rotation kept: a rotation
/// vouches for its members, and the old key is the removed device's too, which could have
/// signed removals of the account's devices with it.
enum RevocationCarryOver {
    static func run(index: SyncIndex, store: IdentityStore, identity: DeviceIdentity, logger: Logger) throws {
        guard let newest = try store.rotations().last, let account = try store.loadAccount() else { return }
        let current = try AccountSignatures(caCertificatePEM: identity.caCertificatePEM)
        let previous = try identity.previousAuthoritiesDER.map { try AccountSignatures(caCertificateDER: $0) }
        let members = try newest.memberIDs()
        var carried: [Revocation] = []
        var dropped: [DeviceID] = []
        for revocation in try index.accountDevices().revocations where !current.isValid(revocation) {
            guard previous.contains(where: { $0.isValid(revocation) }), !members.contains(revocation.device) else {
                dropped.append(revocation.device)
                continue
            }
            carried.append(try account.revoke(revocation.device, by: revocation.by, at: revocation.revokedAt))
        }
        try index.removeRevocations(of: dropped)
        try index.storeAccountDevices([], revocations: carried)
        if !carried.isEmpty || !dropped.isEmpty {
            logger.notice("carried the account's removals over to its rotated key",
                          metadata: ["carried": "\(carried.count)", "dropped": "\(dropped)"])
        }
    }
}
