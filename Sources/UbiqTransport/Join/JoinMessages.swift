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
    /// The ports the inviting device syncs on, so the new device dials it there without
    /// mDNS (absent from agents before 0.9).
    public var syncPorts: [Int]?

    public init(proof: [UInt8], bundle: String, syncPorts: [Int] = []) {
        self.proof = Data(proof)
        self.bundle = bundle
        self.syncPorts = syncPorts
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
    /// The joiner's certificate on this connection, whose key its device certificate is
    /// issued for: its device ID is known from it.
    public let certificateDER: [UInt8]
}

/// What a join by code hands the new workstation: the account bundle, the key its device
/// certificate is to be issued for (the one the inviter saw), and where the inviter syncs.
public struct JoinResult: Sendable {
    public let bundle: String
    public let deviceKeyPEM: String
    /// `host:port` of the inviting device's sync listeners, at the host the join reached.
    public let inviterAddresses: [String]
}

/// Why joining with a code failed, in words that say what to do next.
public struct JoinError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    /// Nothing answered at the address: another of the member's addresses may.
    public let unreachable: Bool
    /// The other side closed the connection before it answered: a join listener always answers.
    let closedWithoutAnswer: Bool
    public init(_ reason: String, unreachable: Bool = false) {
        self.init(reason, unreachable: unreachable, closedWithoutAnswer: false)
    }

    init(_ reason: String, unreachable: Bool, closedWithoutAnswer: Bool) {
        self.reason = reason
        self.unreachable = unreachable
        self.closedWithoutAnswer = closedWithoutAnswer
    }
    public var description: String { reason }
}
