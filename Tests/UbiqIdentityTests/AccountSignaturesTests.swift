import Testing
import UbiqIdentity
import UbiqModel

/// Revocations are signed with the account key and checked with the account certificate.
@Suite struct AccountSignaturesTests {
    @Test func aRevocationIsValidOnlyAsSignedAndOnlyForItsAccount() throws {
        let account = try Account.create()
        let desk = try account.issueDevice(name: "desk")
        let laptop = try account.issueDevice(name: "laptop")
        let signatures = try AccountSignatures(caCertificatePEM: desk.caCertificatePEM)
        let revocation = try account.revoke(laptop.deviceID, by: desk.deviceID, at: 1_700_000_000_000)
        #expect(signatures.isValid(revocation))

        var otherDevice = revocation
        otherDevice.device = desk.deviceID
        var otherTime = revocation
        otherTime.revokedAt += 1
        var otherRemover = revocation
        otherRemover.by = laptop.deviceID
        var garbage = revocation
        garbage.signature = [0x30, 0x02, 0x01]
        for forged in [otherDevice, otherTime, otherRemover, garbage] {
            #expect(!signatures.isValid(forged))
        }
        // Signed by another account's key.
        let stranger = try Account.create().revoke(laptop.deviceID, by: desk.deviceID, at: 1_700_000_000_000)
        #expect(!signatures.isValid(stranger))
    }
}
