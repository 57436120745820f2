import Crypto
import Foundation

/// The one-time code `ubiq device invite` prints and `ubiq account join --code` takes: 24
/// symbols of RFC 4648 base32 (120 bits), shown in four groups of six. Both sides prove
/// knowledge of it bound to their TLS connection: each sends an HMAC, under a key derived
/// from the code (HKDF-SHA256, RFC 5869), of its role and of both certificates the TLS
/// handshake authenticated (each side proved it holds its certificate's key). A party in the
/// middle that terminates TLS shows each side its own certificate, so neither proof it could
/// pass on is valid, and the code is never sent.
///
/// swift-nio-ssl 2.37 offers no keying-material export (RFC 5705); binding to both
/// certificates, like RFC 5929's `tls-server-end-point` for each side, gives the same
/// protection against a relay.
public struct JoinCode: Sendable, Hashable, CustomStringConvertible {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    static let length = 24
    /// The canonical form: 24 upper-case symbols, no separators.
    public let symbols: String

    /// A fresh code from the system's random generator.
    public static func generate() -> JoinCode {
        var generator = SystemRandomNumberGenerator()
        return JoinCode(symbols: String((0..<length).map { _ in alphabet[Int(generator.next(upperBound: UInt8(32)))] }))
    }

    private init(symbols: String) { self.symbols = symbols }

    /// Reads a code as a person types it: any case, with or without dashes and spaces.
    public init(parsing text: String) throws {
        let symbols = text.uppercased().filter { $0 != "-" && !$0.isWhitespace }
        guard symbols.count == Self.length, symbols.allSatisfy({ Self.alphabet.contains($0) }) else {
            throw IdentityError(.invalidJoinCode, "A join code is 24 letters and digits 2–7, as `ubiq device invite` printed it.")
        }
        self.symbols = symbols
    }

    /// Four groups of six, for reading aloud or typing.
    public var description: String {
        stride(from: 0, to: Self.length, by: 6).map { start in
            String(symbols.dropFirst(start).prefix(6))
        }.joined(separator: "-")
    }

    /// What a member announces over mDNS while the code is open, so that a joiner finds it
    /// without trying others' codes: 8 hex digits of a hash of the code (32 bits of 120:
    /// nothing a guesser can use).
    public var hint: String {
        let digest = SHA256.hash(data: Array("ubiq-join-hint/1\n\(symbols)".utf8))
        return digest.prefix(4).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }

    /// What a join proof binds: both certificates of the connection (DER), the inviter's first.
    public static func binding(inviterCertificate: [UInt8], joinerCertificate: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        for der in [inviterCertificate, joinerCertificate] {
            var length = UInt32(der.count).bigEndian
            withUnsafeBytes(of: &length) { hasher.update(bufferPointer: $0) }
            hasher.update(data: der)
        }
        return Array(hasher.finalize())
    }

    /// Which side a proof is from, so that one side's proof is never the other's.
    public enum Role: String, Sendable {
        case joiner, inviter
    }

    public func proof(_ role: Role, binding: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Self.message(role, binding), using: key))
    }

    /// Compared in constant time.
    public func isValid(_ proof: [UInt8], _ role: Role, binding: [UInt8]) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(proof, authenticating: Self.message(role, binding), using: key)
    }

    private var key: SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: Array(symbols.utf8)), salt: Array("ubiq-join/1".utf8),
                               info: Array("proof".utf8), outputByteCount: 32)
    }

    private static func message(_ role: Role, _ binding: [UInt8]) -> [UInt8] {
        Array("ubiq-join/1 \(role.rawValue)\n".utf8) + binding
    }
}
