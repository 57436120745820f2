import Crypto
import Foundation
import Testing
import UbiqIdentity
import UbiqModel
import X509

@Suite struct IdentityStoreTests {
    private let identityFiles = ["account/ca-cert.pem", "account/ca-key.pem", "device/cert.pem", "device/key.pem", "device/name"]

    private func store(_ folder: TemporaryDirectory, _ name: String = "state") -> IdentityStore {
        IdentityStore(state: StateDirectory(path: "\(folder.path)/\(name)"))
    }

    private func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test func createWritesPrivateFilesAndLoadsTheSameIdentity() throws {
        let folder = try TemporaryDirectory()
        let store = store(folder)
        let created = try store.createAccount(deviceName: "desk")
        #expect(try folder.mode(of: "state") == 0o700)
        #expect(try folder.mode(of: "state/account") == 0o700)
        #expect(try folder.mode(of: "state/device") == 0o700)
        for file in identityFiles {
            #expect(try folder.mode(of: "state/\(file)") == 0o600, "\(file)")
        }
        #expect(try folder.read("state/device/name") == "desk\n")

        let loaded = try #require(try store.load())
        #expect(loaded.deviceID == created.deviceID)
        #expect(loaded.identityToken == created.identityToken)
        #expect(loaded.deviceName == "desk")
        #expect(loaded.certificatePEM == created.certificatePEM)
    }

    @Test func namesFollowTheDesignFormulas() throws {
        let folder = try TemporaryDirectory()
        let identity = try store(folder).createAccount(deviceName: "desk")
        let ca = try Certificate(pemEncoded: identity.caCertificatePEM)
        let caKey = try #require(P256.Signing.PublicKey(ca.publicKey))
        #expect(identity.identityToken == hex(SHA256.hash(data: caKey.derRepresentation)))
        #expect(identity.identityToken.count == 64)
        #expect(identity.accountTag == String(hex(SHA256.hash(data: Data(identity.identityToken.utf8))).prefix(16)))

        let device = try Certificate(pemEncoded: identity.certificatePEM)
        let deviceKey = try #require(P256.Signing.PublicKey(device.publicKey))
        #expect(identity.deviceID == DeviceID(publicKeyDigest: SHA256.hash(data: deviceKey.derRepresentation)))
        #expect(try KeyDigests.deviceID(certificateDER: identity.certificateDER) == identity.deviceID)
    }

    @Test func certificatesHaveTheRightRoles() throws {
        let folder = try TemporaryDirectory()
        let identity = try store(folder).createAccount(deviceName: "desk")
        let ca = try Certificate(pemEncoded: identity.caCertificatePEM)
        #expect(try ca.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try ca.extensions.keyUsage?.keyCertSign == true)
        #expect(ca.issuer == ca.subject)
        #expect(ca.notValidAfter.timeIntervalSinceNow > 19 * 365 * 24 * 3600)

        let device = try Certificate(pemEncoded: identity.certificatePEM)
        #expect(try device.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try device.extensions.keyUsage?.digitalSignature == true)
        #expect(try device.extensions.keyUsage?.keyCertSign == false)
        let usages = try #require(try device.extensions.extendedKeyUsage)
        #expect(usages.contains(.serverAuth) && usages.contains(.clientAuth))
        #expect(device.issuer == ca.subject)
        #expect(ca.publicKey.isValidSignature(device.signature, for: device))
    }

    @Test func secondCreateIsRefused() throws {
        let folder = try TemporaryDirectory()
        let store = store(folder)
        _ = try store.createAccount(deviceName: "desk")
        expectIdentityError(.accountExists) {
            _ = try store.createAccount(deviceName: "again")
        }
    }

    @Test func loadOrCreateCreatesOnce() throws {
        let folder = try TemporaryDirectory()
        let store = store(folder)
        #expect(try store.load() == nil)
        let first = try store.loadOrCreate(deviceName: "desk")
        let second = try store.loadOrCreate(deviceName: "other")
        #expect(first.created)
        #expect(!second.created)
        #expect(first.identity.deviceID == second.identity.deviceID)
        #expect(second.identity.deviceName == "desk")
    }

    /// A first start makes an account; a start after a sign-out does not, until a sign-in.
    @Test func aStartAfterASignOutStaysSignedOut() throws {
        let folder = try TemporaryDirectory()
        let store = store(folder)
        let first = try store.identityForStart(deviceName: "desk")
        #expect(first.created && first.identity != nil && !store.signedOut)
        try store.leave()
        #expect(store.signedOut)
        let again = try store.identityForStart(deviceName: "desk")
        #expect(again.identity == nil && !again.created)
        _ = try store.createAccount(deviceName: "desk")
        #expect(!store.signedOut)
        #expect(try store.identityForStart().identity != nil)
    }

    @Test func exportThenJoinGivesSameAccountAndNewDevice() throws {
        let folder = try TemporaryDirectory()
        let first = try store(folder, "one").createAccount(deviceName: "desk")
        try store(folder, "one").exportBundle(to: "\(folder.path)/bundle.pem")
        #expect(try folder.mode(of: "bundle.pem") == 0o600)

        let joined = try store(folder, "two").join(bundle: "\(folder.path)/bundle.pem", deviceName: "laptop")
        #expect(joined.identityToken == first.identityToken)
        #expect(joined.accountTag == first.accountTag)
        #expect(joined.deviceID != first.deviceID)
        #expect(joined.deviceName == "laptop")
        #expect(joined.caCertificatePEM == first.caCertificatePEM)
        let reloaded = try #require(try store(folder, "two").load())
        #expect(reloaded.deviceID == joined.deviceID)
        for file in identityFiles {
            #expect(try folder.mode(of: "two/\(file)") == 0o600, "\(file)")
        }
    }

    @Test func exportKeepsAnExistingFileUnlessTold() throws {
        let folder = try TemporaryDirectory()
        let store = store(folder)
        _ = try store.createAccount(deviceName: "desk")
        try folder.write("keep me", to: "bundle.pem")
        expectIdentityError(.fileExists) {
            try store.exportBundle(to: "\(folder.path)/bundle.pem")
        }
        #expect(try folder.read("bundle.pem") == "keep me")
        try store.exportBundle(to: "\(folder.path)/bundle.pem", overwrite: true)
        #expect(try folder.read("bundle.pem").contains("BEGIN CERTIFICATE"))
        #expect(try folder.mode(of: "bundle.pem") == 0o600)
    }

    @Test func exportWithoutAccountFails() throws {
        let folder = try TemporaryDirectory()
        expectIdentityError(.noAccount) {
            try store(folder).exportBundle(to: "\(folder.path)/bundle.pem")
        }
        #expect(!folder.exists("bundle.pem"))
    }

    @Test(arguments: ["garbage", "", "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n"])
    func joinRefusesGarbageAndWritesNothing(_ text: String) throws {
        let folder = try TemporaryDirectory()
        try folder.write(text, to: "bundle.pem")
        expectIdentityError(.invalidBundle) {
            _ = try store(folder).join(bundle: "\(folder.path)/bundle.pem")
        }
        #expect(!folder.exists("state/account"))
        #expect(!folder.exists("state/device"))
    }

    @Test func joinRefusesKeyOfAnotherAccount() throws {
        let one = try Account.create()
        let two = try Account.create()
        let folder = try TemporaryDirectory()
        try folder.write(one.certificatePEM + two.privateKeyPEM, to: "bundle.pem")
        expectIdentityError(.invalidBundle) {
            _ = try store(folder).join(bundle: "\(folder.path)/bundle.pem")
        }
        #expect(!store(folder).hasAccount)
    }

    @Test func joinRefusesADeviceCertificate() throws {
        let device = try Account.create().issueDevice(name: "desk")
        let folder = try TemporaryDirectory()
        try folder.write(device.certificatePEM + device.privateKeyPEM, to: "bundle.pem")
        expectIdentityError(.invalidBundle) {
            _ = try store(folder).join(bundle: "\(folder.path)/bundle.pem")
        }
        #expect(!store(folder).hasAccount)
    }

    @Test func joinRefusesAMissingBundle() throws {
        let folder = try TemporaryDirectory()
        expectIdentityError(.invalidBundle) {
            _ = try store(folder).join(bundle: "\(folder.path)/nothing.pem")
        }
    }

    /// An endless file is refused after a bounded read instead of filling memory.
    @Test func joinRefusesAnEndlessBundle() throws {
        let folder = try TemporaryDirectory()
        let error = #expect(throws: IdentityError.self) {
            _ = try store(folder).join(bundle: "/dev/zero")
        }
        #expect(error?.code == .invalidBundle)
        #expect(error?.message.contains("larger than 1 MiB") == true)
        #expect(!store(folder).hasAccount)
    }

    @Test func joinIntoAnAccountIsRefused() throws {
        let folder = try TemporaryDirectory()
        _ = try store(folder, "one").createAccount(deviceName: "desk")
        try store(folder, "one").exportBundle(to: "\(folder.path)/bundle.pem")
        let existing = try store(folder, "two").createAccount(deviceName: "laptop")
        expectIdentityError(.accountExists) {
            _ = try store(folder, "two").join(bundle: "\(folder.path)/bundle.pem")
        }
        #expect(try store(folder, "two").load()?.identityToken == existing.identityToken)
    }

    @Test func leaveRemovesEverything() throws {
        let folder = try TemporaryDirectory()
        let store = store(folder)
        _ = try store.createAccount(deviceName: "desk")
        try store.leave()
        #expect(try store.load() == nil)
        for file in identityFiles {
            #expect(!folder.exists("state/\(file)"))
        }
        expectIdentityError(.noAccount) {
            try store.leave()
        }
        _ = try store.createAccount(deviceName: "desk")
    }

    @Test func partialStateIsReportedAsDamaged() throws {
        let folder = try TemporaryDirectory()
        let store = store(folder)
        _ = try store.createAccount(deviceName: "desk")
        try FileManager.default.removeItem(atPath: "\(folder.path)/state/device/key.pem")
        expectIdentityError(.damagedState) {
            _ = try store.load()
        }
    }

    @Test func deviceCertificateOfAnotherAccountIsReportedAsDamaged() throws {
        let folder = try TemporaryDirectory()
        let store = store(folder)
        _ = try store.createAccount(deviceName: "desk")
        let stranger = try Account.create().issueDevice(name: "stranger")
        try folder.write(stranger.certificatePEM, to: "state/device/cert.pem")
        try folder.write(stranger.privateKeyPEM, to: "state/device/key.pem")
        expectIdentityError(.damagedState) {
            _ = try store.load()
        }
    }

    @Test func deviceNameDefaultsToHostNameAndIsValidated() throws {
        let folder = try TemporaryDirectory()
        #expect(!IdentityStore.defaultDeviceName.isEmpty)
        let identity = try store(folder).createAccount()
        #expect(identity.deviceName == IdentityStore.defaultDeviceName)
        for bad in ["", "   ", "two\nlines", String(repeating: "x", count: 256)] {
            expectIdentityError(.invalidDeviceName) {
                _ = try store(folder, "other").createAccount(deviceName: bad)
            }
        }
    }
}

func expectIdentityError(
    _ code: IdentityError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    let error = #expect(throws: IdentityError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}
