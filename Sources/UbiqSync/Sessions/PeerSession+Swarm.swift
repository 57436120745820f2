import UbiqModel
import UbiqWire

/// Word between peers of the pieces they hold of versions they are still assembling
/// (protocol 6), so that receivers of one file fetch from each other, not all from its origin.
extension PeerSession {
    /// Takes in what the peer holds now of a version it assembles. A message that is not
    /// well formed, or names a container not shared, is dropped with a warning: it costs the
    /// peer its word on it, nothing else.
    func receiveProgress(_ message: Ubiq_Wire_ChunkProgress) {
        do throws(WireError) {
            let progress = try ChunkProgressMapping.progress(message)
            guard agreement?.containers[progress.version.container] != nil else {
                throw WireError(.malformed, "chunk progress for a container not shared")
            }
            swarm.heard(progress, from: link.remoteDevice)
        } catch {
            logger.warning("dropped word of chunks held", metadata: ["code": "\(error.code)", "reason": "\(error.reason)"])
        }
    }

    /// Tells a peer that just connected what this device holds of the versions it assembles
    /// now; what it gets later follows through the engine's announcer.
    func sendProgress(of containers: [ContainerID: ContainerSync]) async throws {
        for container in containers.values {
            for progress in container.assemblies.inProgress() {
                for message in ChunkProgressMapping.messages(progress) {
                    try await link.send(Ubiq_Wire_Envelope(.chunkProgress(message)))
                }
            }
        }
    }
}
