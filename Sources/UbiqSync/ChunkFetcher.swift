import UbiqModel

/// Fetches a chunk from some connected peer that may hold it. The engine implements it over
/// peer sessions; the container only verifies what comes back.
public protocol ChunkFetcher: Sendable {
    func fetch(container: ContainerID, path: RelativePath, chunk: ChunkRef, excluding: Set<DeviceID>) async throws
        -> (bytes: [UInt8], from: DeviceID)
}

/// Why a chunk could not be had from peers.
public struct FetchError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
