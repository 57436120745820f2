import Foundation
import UbiqModel

/// The puller's peers are the engine's sessions: each connected peer that shares the
/// container is a source, holding all of a version its index lists, the pieces it announced
/// of one it assembles, or nothing known.
public struct EngineChunkFetcher: ChunkFetcher {
    let engine: SyncEngine

    public init(engine: SyncEngine) { self.engine = engine }

    public func sources(of version: SwarmVersion, holders: [DeviceID]) async -> [SwarmSource] {
        let now = engine.environment.clock.now
        var sources: [SwarmSource] = []
        for session in engine.environment.random.shuffled(await engine.sessions(sharing: version.container)) {
            let peer = session.link.remoteDevice
            let pieces = engine.swarm.pieces(version, of: peer, at: now)
            let holding: SwarmSource.Holding = holders.contains(peer) ? .all : pieces.map { .some($0.held) } ?? .unknown
            sources.append(SwarmSource(device: peer, holding: holding, claimed: pieces?.claimed ?? RangeSet(),
                                       stalled: await session.stalledLately))
        }
        return sources
    }

    public func fetch(_ run: [ChunkRef], of version: SwarmVersion, from peer: DeviceID) async throws -> Data {
        guard let session = await engine.session(with: peer) else { throw FetchError("\(peer) is not connected") }
        return try await session.request(version.container, path: version.path, run: run)
    }

    public func announce(_ progress: SwarmProgress) {
        engine.announcer.add(progress, executor: engine.environment.executor,
                             recipients: { [engine] version in await engine.progressRecipients(of: version) },
                             send: { [engine] peer, batch in await engine.tell(peer, batch) })
    }

    public func demote(_ peer: DeviceID, because reason: String) {
        if engine.swarm.demote(peer, at: engine.environment.clock.now) {
            engine.logger.warning("a peer's word on what it holds no longer counts for a while", metadata: [
                "peer": "\(peer)", "reason": "\(reason)", "for": "\(SwarmBoard.demotion)",
            ])
        }
    }
}
