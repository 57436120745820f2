import NIOCore
import Synchronization

/// Accepted connections not yet taken by the accept loop.
///
/// A connection accepted while the listener shuts down can be dropped by NIO's server
/// stream before the loop sees it, and would then stay open with nobody serving it. The
/// server closes whatever is still unclaimed once its loop has ended, and refuses
/// connections accepted after that.
final class UnclaimedConnections: Sendable {
    private struct State {
        var stopped = false
        var channels: [ObjectIdentifier: any Channel] = [:]
    }

    private let state = Mutex(State())

    /// Records a new connection; false once the server has stopped.
    func register(_ channel: any Channel) -> Bool {
        state.withLock { state in
            guard !state.stopped else { return false }
            state.channels[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    func claim(_ channel: any Channel) {
        _ = state.withLock { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Refuses later connections and closes the unclaimed ones.
    func stop() {
        let leftovers = state.withLock { state in
            state.stopped = true
            defer { state.channels = [:] }
            return Array(state.channels.values)
        }
        for channel in leftovers { channel.close(promise: nil) }
    }
}
