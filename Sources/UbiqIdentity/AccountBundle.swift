import SwiftASN1

/// The text file that carries an account to another workstation: the CA certificate and CA
/// key as PEM, after a few comment lines that say what the file is.
enum AccountBundle {
    static func encode(_ account: Account) -> String {
        """
        # ubiq account bundle for identity \(account.identityToken)
        # Whoever holds this file can add devices to the account: keep it secret,
        # copy it only to your own workstations and delete it after `ubiq account join`.
        \(account.certificatePEM)
        \(account.privateKeyPEM)

        """
    }

    static func decode(_ text: String) throws -> Account {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: text)
        } catch {
            throw IdentityError(.invalidBundle, "The account bundle is not valid PEM text (\(error)); export it again with `ubiq account export`.")
        }
        let certificates = documents.filter { $0.discriminator == "CERTIFICATE" }
        let keys = documents.filter { $0.discriminator.hasSuffix("PRIVATE KEY") }
        guard certificates.count == 1, keys.count == 1 else {
            throw IdentityError(
                .invalidBundle,
                "The account bundle must hold one certificate and one private key (found \(certificates.count) and \(keys.count)); export it again with `ubiq account export`."
            )
        }
        do {
            return try Account(certificatePEM: certificates[0].pemString, privateKeyPEM: keys[0].pemString)
        } catch {
            let reason = (error as? IdentityError)?.message ?? "\(error)."
            throw IdentityError(.invalidBundle, "The account bundle is not usable: \(reason)")
        }
    }
}

extension Account {
    /// The text `ubiq account export` writes for this account.
    @_spi(Testing)
    public var bundleText: String { AccountBundle.encode(self) }

    /// The account in a bundle's text, checked as `IdentityStore.join` checks it; nothing is
    /// written. For the fuzzer and tests.
    @_spi(Testing)
    public init(bundleText: String) throws {
        self = try AccountBundle.decode(bundleText)
    }
}
