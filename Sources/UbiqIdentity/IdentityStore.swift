#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Crypto
import X509

/// Keeps the account and this device's identity in a state directory: creates an account,
/// exports it for another workstation, joins one, loads it at start, and signs out.
public struct IdentityStore: Sendable {
    public let state: StateDirectory

    public init(state: StateDirectory) {
        self.state = state
    }

    /// Whether any identity file is present (a whole identity or the remains of one).
    public var hasAccount: Bool {
        StateDirectory.File.allCases.contains { state.exists($0) }
    }

    /// The stored identity, or nil when there is none. Throws `damagedState` when only part of
    /// one is there or its files do not belong together.
    public func load() throws -> DeviceIdentity? {
        guard hasAccount else { return nil }
        do { try finishRotation() } catch let error as IdentityError where error.code == .damagedState { throw error } catch {
            throw damaged("the last account rotation could not be finished: \(error)")
        }
        var contents: [StateDirectory.File: String] = [:]
        for file in StateDirectory.File.allCases {
            guard let text = try state.read(file) else {
                throw damaged("\(state.path(of: file)) is missing")
            }
            contents[file] = text
        }
        do {
            let account = try Account(certificatePEM: contents[.caCertificate]!, privateKeyPEM: contents[.caKey]!)
            let identity = try DeviceIdentity(
                deviceName: Self.trimmed(contents[.deviceName]!),
                certificatePEM: contents[.deviceCertificate]!,
                privateKeyPEM: contents[.deviceKey]!,
                caCertificatePEM: contents[.caCertificate]!
            )
            guard account.issued(try Certificate(derEncoded: identity.certificateDER)) else {
                throw IdentityError(.invalidCertificate, "the device certificate was not issued by the account")
            }
            return try withRotations(identity)
        } catch {
            throw damaged((error as? IdentityError)?.message ?? "\(error)")
        }
    }

    /// The stored account (its CA certificate and key), for signing in its name; nil when
    /// there is none.
    public func loadAccount() throws -> Account? {
        guard let certificate = try state.read(.caCertificate), let key = try state.read(.caKey) else { return nil }
        do { return try Account(certificatePEM: certificate, privateKeyPEM: key) } catch {
            throw damaged((error as? IdentityError)?.message ?? "\(error)")
        }
    }

    /// Creates a new account and this device's identity in it.
    public func createAccount(deviceName: String? = nil) throws -> DeviceIdentity {
        try requireNoAccount()
        let name = try Self.validated(deviceName: deviceName ?? Self.defaultDeviceName)
        let account = try Account.create()
        return try save(account: account, device: account.issueDevice(name: name))
    }

    /// The stored identity, or a new account with this device in it when there is none.
    public func loadOrCreate(deviceName: String? = nil) throws -> (identity: DeviceIdentity, created: Bool) {
        if let identity = try load() { return (identity, false) }
        return (try createAccount(deviceName: deviceName), true)
    }

    /// Writes the account bundle (CA certificate and key, mode 0600) for `ubiq account join`
    /// on another workstation. An existing file is kept unless `overwrite` is set.
    public func exportBundle(to path: String, overwrite: Bool = false) throws {
        guard let account = try loadAccount() else {
            throw IdentityError(.noAccount, "There is no account in \(state.path) to export; create one with `ubiq account create` or join one.")
        }
        try PrivateFiles.writeFile(Array(AccountBundle.encode(account).utf8), to: path, replacing: overwrite)
    }

    /// The account bundle's text, for handing to a device that joins with a code.
    public func bundleText() throws -> String {
        guard let account = try loadAccount() else {
            throw IdentityError(.noAccount, "There is no account in \(state.path) to hand over.")
        }
        return AccountBundle.encode(account)
    }

    /// Joins the account in the bundle at `path`: stores its CA and signs a new device
    /// certificate for this workstation. Nothing is written when the bundle is unusable.
    public func join(bundle path: String, deviceName: String? = nil) throws -> DeviceIdentity {
        try requireNoAccount()
        let name = try Self.validated(deviceName: deviceName ?? Self.defaultDeviceName)
        let bytes: [UInt8]
        do {
            guard let read = try PrivateFiles.readFile(path) else {
                throw IdentityError(.invalidBundle, "There is no account bundle at \(path).")
            }
            bytes = read
        } catch let error as IdentityError where error.code == .fileSystem {
            throw IdentityError(.invalidBundle, error.message)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw IdentityError(.invalidBundle, "\(path) is not a text file; export the bundle again with `ubiq account export`.")
        }
        return try join(bundleText: text, deviceName: name)
    }

    /// Joins the account in a bundle's text (as `ubiq account export` writes it). The device
    /// key is `deviceKeyPEM` (the key a join by code showed the inviting device, which lists
    /// the device by it), or a fresh one.
    public func join(bundleText text: String, deviceName: String? = nil, deviceKeyPEM: String? = nil) throws -> DeviceIdentity {
        try requireNoAccount()
        let name = try Self.validated(deviceName: deviceName ?? Self.defaultDeviceName)
        let account = try AccountBundle.decode(text)
        let key: P256.Signing.PrivateKey
        do { key = try deviceKeyPEM.map { try P256.Signing.PrivateKey(pemRepresentation: $0) } ?? P256.Signing.PrivateKey() } catch {
            throw IdentityError(.invalidBundle, "The device key handed over with the join is not a P-256 key in PEM; join again.")
        }
        return try save(account: account, device: account.issueDevice(name: name, key: key))
    }

    /// Signs this workstation out: removes the account and the device identity, and notes
    /// that it signed out, so that the agent does not make itself a new account at its next
    /// start (only a first start does).
    public func leave() throws {
        guard hasAccount else {
            throw IdentityError(.noAccount, "There is no account in \(state.path).")
        }
        let token = (try? load())?.identityToken ?? ""
        try PrivateFiles.writeFile(Array((token + "\n").utf8), to: signedOutMarker)
        if PrivateFiles.exists(rotationLog) { try PrivateFiles.remove(rotationLog) }
        try RememberedPeers(state: state).forget()
        for file in StateDirectory.File.allCases {
            try state.remove(file)
        }
    }

    /// Whether this workstation signed out and has not signed in since.
    public var signedOut: Bool { !hasAccount && PrivateFiles.exists(signedOutMarker) }

    /// The identity to start with: the stored one; a new account on a first start; nil when
    /// the workstation signed out (the agent then waits for `create` or `join`).
    public func identityForStart(deviceName: String? = nil) throws -> (identity: DeviceIdentity?, created: Bool) {
        if let identity = try load() { return (identity, false) }
        if signedOut { return (nil, false) }
        return (try createAccount(deviceName: deviceName), true)
    }

    private var signedOutMarker: String { state.path + "/signed-out" }

    /// The workstation's host name, the default device name.
    public static var defaultDeviceName: String { hostName ?? "ubiq-device" }

    /// The workstation's host name; nil where it has none.
    public static var hostName: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    private func save(account: Account, device: DeviceIdentity) throws -> DeviceIdentity {
        let files: [(StateDirectory.File, String)] = [
            (.caCertificate, account.certificatePEM),
            (.caKey, account.privateKeyPEM),
            (.deviceCertificate, device.certificatePEM),
            (.deviceKey, device.privateKeyPEM),
            (.deviceName, device.deviceName + "\n"),
        ]
        do {
            for (file, contents) in files {
                try state.write(contents, to: file)
            }
            if PrivateFiles.exists(signedOutMarker) { try PrivateFiles.remove(signedOutMarker) }
        } catch {
            for (file, _) in files {
                try? state.remove(file)
            }
            throw error
        }
        return device
    }

    private func requireNoAccount() throws {
        guard !hasAccount else {
            throw IdentityError(.accountExists, "\(state.path) already holds an account; run `ubiq account leave` first to replace it.")
        }
    }

    private func damaged(_ reason: String) -> IdentityError {
        IdentityError(
            .damagedState,
            "The identity in \(state.path) is damaged (\(reason)); run `ubiq account leave` and create or join the account again."
        )
    }

    static func validated(deviceName: String) throws -> String {
        let name = trimmed(deviceName)
        guard !name.isEmpty, name.utf8.count <= 255, !name.contains(where: \.isNewline) else {
            throw IdentityError(.invalidDeviceName, "A device name must be 1 to 255 bytes of text on one line.")
        }
        return name
    }

    static func trimmed(_ text: String) -> String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
