import Foundation
import Testing
import UbiqIdentity
import UbiqModel
import X509

/// An account's rotation in the state folder: the new CA keeps the token, every kept device
/// gets a certificate for its own key, a device left out or a rotation not signed by the CA
/// this device trusts is refused without a change, and the trust check tells members, devices
/// behind and devices ahead apart.
@Suite struct AccountRotationTests {
    private func store(_ folder: TemporaryDirectory, _ name: String) -> IdentityStore {
        IdentityStore(state: StateDirectory(path: "\(folder.path)/\(name)"))
    }

    /// Three devices of one account: desk (which rotates), laptop and the lost one.
    private func account(_ folder: TemporaryDirectory) throws -> (desk: IdentityStore, laptop: IdentityStore, lost: IdentityStore) {
        let desk = store(folder, "desk")
        _ = try desk.createAccount(deviceName: "desk")
        let bundle = try desk.bundleText()
        let laptop = store(folder, "laptop")
        _ = try laptop.join(bundleText: bundle, deviceName: "laptop")
        let lost = store(folder, "lost")
        _ = try lost.join(bundleText: bundle, deviceName: "lost")
        return (desk, laptop, lost)
    }

    private func publicKey(_ store: IdentityStore) throws -> [UInt8] {
        try KeyDigests.subjectPublicKeyInfo(certificateDER: try #require(try store.load()).certificateDER)
    }

    private func chain(_ identity: DeviceIdentity) -> [[UInt8]] {
        [identity.certificateDER] + identity.crossCertificatesDER
    }

    @Test func aRotationKeepsTheTokenAndTheDevicesAndChangesTheirCertificates() throws {
        let folder = try TemporaryDirectory()
        let (desk, laptop, lost) = try account(folder)
        let before = try #require(try desk.load())
        let laptopBefore = try #require(try laptop.load())
        let rotation = try desk.rotate(keeping: [try publicKey(laptop)], by: before.deviceID)
        #expect(rotation.generation == 1)
        #expect(try rotation.memberIDs() == [before.deviceID, laptopBefore.deviceID])

        let after = try #require(try desk.load())
        #expect(after.identityToken == before.identityToken && after.deviceID == before.deviceID)
        #expect(after.caCertificatePEM != before.caCertificatePEM && after.certificatePEM != before.certificatePEM)
        #expect(try desk.generation() == 1)
        #expect(try desk.loadAccount()?.identityToken == before.identityToken)
        #expect(after.previousAuthoritiesDER.count == 1 && after.crossCertificatesDER.count == 1)

        // Before the laptop takes it, each sees the other across the generations.
        #expect(try AccountTrust(identity: after).check(chain: chain(laptopBefore)).standing == .behind)
        #expect(try AccountTrust(identity: laptopBefore).check(chain: chain(after)).standing == .ahead)
        let laptopAfter = try #require(try laptop.apply(try desk.rotations()))
        #expect(laptopAfter.identityToken == before.identityToken && laptopAfter.deviceID == laptopBefore.deviceID)
        #expect(try AccountTrust(identity: after).check(chain: chain(laptopAfter)).standing == .member)
        #expect(try AccountTrust(identity: laptopAfter).check(chain: chain(after)).standing == .member)
        // Taking it again changes nothing.
        #expect(try laptop.apply(try desk.rotations()) == nil)

        // The lost device's certificate is only `behind`, which members take for a hand-over
        // alone, and a rotation it tries to take leaves it out.
        let lostIdentity = try #require(try lost.load())
        #expect(try AccountTrust(identity: after).check(chain: chain(lostIdentity)).standing == .behind)
        #expect(throws: IdentityError.self) { try lost.apply(try desk.rotations()) }
        #expect(try lost.load()?.certificatePEM == lostIdentity.certificatePEM, "a refused rotation changed the lost device")
        #expect(try lost.generation() == 0)
    }

    @Test func aRotationNotSignedByTheTrustedCAIsRefused() throws {
        let folder = try TemporaryDirectory()
        let (desk, laptop, lost) = try account(folder)
        let deskID = try #require(try desk.load()).deviceID
        _ = try desk.rotate(keeping: [try publicKey(laptop)], by: deskID)

        // The lost device rotates with the old key: the rotated laptop does not take it.
        let lostID = try #require(try lost.load()).deviceID
        _ = try laptop.apply(try desk.rotations())
        _ = try lost.rotate(keeping: [try publicKey(laptop)], by: lostID)
        var forged = try lost.rotations()
        #expect(try laptop.apply(forged) == nil, "a rotation of a generation the laptop has is not taken")
        // Renumbered to follow the laptop's generation, it still names another CA before it.
        let first = forged[0]
        forged = [AccountRotation(generation: 2, previousAuthority: first.previousAuthority, authority: first.authority,
                                  crossCertificate: first.crossCertificate, authorityKey: first.authorityKey, members: first.members,
                                  rotator: first.rotator, rotatedAt: first.rotatedAt)]
        #expect(throws: IdentityError.self) { try laptop.apply(forged) }
        #expect(try laptop.generation() == 1)

        // Another account's rotation, and a rotation whose key is not its CA's, are refused.
        let other = store(folder, "other")
        let otherID = try other.createAccount(deviceName: "other").deviceID
        let foreign = try other.rotate(keeping: [try publicKey(laptop)], by: otherID)
        let fresh = store(folder, "fresh")
        _ = try fresh.join(bundleText: try lost.bundleText(), deviceName: "fresh")
        #expect(throws: IdentityError.self) { try fresh.apply([foreign]) }
        let genuine = try desk.rotations()[0]
        let wrongKey = AccountRotation(generation: 1, previousAuthority: genuine.previousAuthority, authority: genuine.authority,
                                       crossCertificate: genuine.crossCertificate, authorityKey: foreign.authorityKey,
                                       members: genuine.members, rotator: genuine.rotator, rotatedAt: genuine.rotatedAt)
        let offline = store(folder, "offline")
        try FileManager.default.copyItem(atPath: "\(folder.path)/desk", toPath: "\(folder.path)/offline")
        try FileManager.default.removeItem(atPath: "\(folder.path)/offline/account/rotations.json")
        #expect(throws: (any Error).self) { try offline.apply([wrongKey]) }
    }

    @Test func aRotationCutShortIsFinishedAtTheNextLoad() throws {
        let folder = try TemporaryDirectory()
        let (desk, _, _) = try account(folder)
        let oldAuthority = try String(contentsOfFile: "\(folder.path)/desk/account/ca-cert.pem", encoding: .utf8)
        let oldDevice = try String(contentsOfFile: "\(folder.path)/desk/device/cert.pem", encoding: .utf8)
        let rotated = try desk.rotate(keeping: [], by: try #require(try desk.load()).deviceID)
        // The log was written, then the agent stopped before the files were replaced.
        try oldAuthority.write(toFile: "\(folder.path)/desk/account/ca-cert.pem", atomically: true, encoding: .utf8)
        try oldDevice.write(toFile: "\(folder.path)/desk/device/cert.pem", atomically: true, encoding: .utf8)
        let loaded = try #require(try desk.load())
        #expect(try Certificate(pemEncoded: loaded.caCertificatePEM).serializeAsPEM().derBytes == Array(rotated.authority))
        #expect(try AccountTrust(identity: loaded).check(chain: [loaded.certificateDER]).standing == .member)
    }

    @Test func leavingRemovesTheRotationLog() throws {
        let folder = try TemporaryDirectory()
        let (desk, _, _) = try account(folder)
        _ = try desk.rotate(keeping: [], by: try #require(try desk.load()).deviceID)
        try desk.leave()
        #expect(!FileManager.default.fileExists(atPath: "\(folder.path)/desk/account"))
        #expect(try desk.rotations().isEmpty)
    }
}
