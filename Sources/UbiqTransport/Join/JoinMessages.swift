import Foundation

/// What a joining workstation sends first, in one frame of JSON: its proof of the code.
struct JoinRequest: Codable, Sendable {
    var proof: Data
    var name: String
}

/// The inviter's answer, in one frame of JSON: its own proof and the account bundle, or why
/// not.
public struct JoinAnswer: Codable, Sendable {
    public var proof: Data?
    public var bundle: String?
    public var error: String?

    public init(proof: [UInt8], bundle: String) {
        self.proof = Data(proof)
        self.bundle = bundle
    }

    public init(error: String) { self.error = error }
}

/// The joiner's proof as the inviter sees it, with what the TLS connection bound it to.
public struct JoinAttempt: Sendable {
    public let proof: [UInt8]
    /// ``UbiqIdentity/JoinCode/binding(inviterCertificate:joinerCertificate:)`` of this connection.
    public let binding: [UInt8]
    public let name: String
    public let from: String
}

/// Why joining with a code failed, in words that say what to do next.
public struct JoinError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    /// Nothing answered at the address: another of the member's addresses may.
    public let unreachable: Bool
    public init(_ reason: String, unreachable: Bool = false) {
        self.reason = reason
        self.unreachable = unreachable
    }
    public var description: String { reason }
}
