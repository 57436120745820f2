import Foundation
import UbiqModel

/// The puller's way to its peers for a file's chunks: which connected peers may hold a
/// version and how much of it, one run of chunks from one of them, and word to them of what
/// this device holds of a version it assembles. ``SwarmPlan`` decides whom to ask for what;
/// the engine implements it over peer sessions.
public protocol ChunkFetcher: Sendable {
    /// The connected peers that share the version's container, in an order of no meaning,
    /// with what each holds of it: `holders`, the devices whose index lists the version,
    /// hold all of it.
    func sources(of version: SwarmVersion, holders: [DeviceID]) async -> [SwarmSource]
    /// A run of chunks that follow each other in the file, from `peer`. The answer holds at
    /// least the first chunk and may stop after any of them; the caller verifies each. The
    /// bytes are those of the peer's answer as decoded, not copied again. Throws a
    /// ``FetchError`` that says why, or `CancellationError`.
    func fetch(_ run: [ChunkRef], of version: SwarmVersion, from peer: DeviceID) async throws -> Data
    /// Tells the peers that fetch the same version which bytes of it this device holds now,
    /// or that it gave it up. Batched: returns before the word is sent.
    func announce(_ progress: SwarmProgress)
    /// `peer` announced pieces it did not serve, or sent bytes that fail their hash: its
    /// word counts no more for a while.
    func demote(_ peer: DeviceID, because reason: String)
}

/// Why a chunk could not be had from a peer.
public struct FetchError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// The peer answered that it has not got the chunk.
        case notServed
        /// The answer did not fit the request.
        case badAnswer
        /// No answer: no connection, the connection ended, or the request timed out.
        case noAnswer
    }

    public let kind: Kind
    public let reason: String
    public init(_ reason: String, kind: Kind = .noAnswer) {
        self.reason = reason
        self.kind = kind
    }
    public var description: String { reason }
}
