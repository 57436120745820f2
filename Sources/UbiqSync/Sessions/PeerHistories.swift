import Foundation
import UbiqModel

/// What the peers sharing a container keep in their histories: listed beside this device's
/// own for `history.list`, and a kept version's chunk list fetched to restore it through
/// them. The engine implements it over peer sessions.
public protocol PeerHistories: Sendable {
    /// The histories of the connected peers that answer within a few seconds, each limited
    /// to what is kept under `root` (the whole container when nil).
    func histories(container: ContainerID, under root: RelativePath?) async -> [PeerHistory]

    /// The kept version `version` of `path` as `device` keeps it, with its whole chunk list.
    func version(container: ContainerID, path: RelativePath, id version: Int64, from device: DeviceID) async throws -> HistoryEntry
}

/// Asks every connected peer that shares the container at once; a peer that does not answer
/// within ``answerTime`` is left out of the listing, as an offline one is.
public struct EnginePeerHistories: PeerHistories {
    let engine: SyncEngine
    /// How long a listing waits for peers.
    public static let answerTime: Duration = .seconds(5)

    public init(engine: SyncEngine) { self.engine = engine }

    public func histories(container: ContainerID, under root: RelativePath?) async -> [PeerHistory] {
        let sessions = await engine.sessions(sharing: container)
        let clock = engine.environment.clock
        let logger = engine.logger
        return await withTaskGroup(of: PeerHistory?.self) { group in
            for session in sessions {
                group.addTask {
                    do {
                        return try await withDeadline(Self.answerTime, clock: clock) { try await session.history(container, path: root) }
                    } catch {
                        logger.info("a peer did not list its history", metadata: [
                            "peer": "\(session.link.remoteDevice)", "container": "\(container)", "error": "\(error)",
                        ])
                        return nil
                    }
                }
            }
            var result: [PeerHistory] = []
            for await history in group { if let history { result.append(history) } }
            return result.sorted { $0.device < $1.device }
        }
    }

    public func version(container: ContainerID, path: RelativePath, id version: Int64, from device: DeviceID) async throws -> HistoryEntry {
        guard let session = await engine.sessions(sharing: container).first(where: { $0.link.remoteDevice == device }) else {
            throw FetchError("\(device) is not connected")
        }
        let answer = try await session.history(container, path: path, versions: [version])
        guard let entry = answer.entries.first(where: { $0.id == version && $0.path == path }) else {
            throw FetchError("\(device) no longer keeps that version of '\(path)'")
        }
        return entry
    }
}
