import Foundation
import UbiqModel

/// Fetches a run of chunks that follow each other in a file from some connected peer that
/// may hold them. The answer holds at least the first chunk and may stop after any of them;
/// the container verifies each and asks again for what is missing. The bytes are those of
/// the peer's answer as decoded, not copied again. The engine implements it over peer
/// sessions.
public protocol ChunkFetcher: Sendable {
    /// `holders` are the devices known to hold the wanted version; they are asked first.
    func fetch(container: ContainerID, path: RelativePath, run: [ChunkRef], excluding: Set<DeviceID>, holders: [DeviceID]) async throws
        -> (bytes: Data, from: DeviceID)
}

/// Why a chunk could not be had from peers.
public struct FetchError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
