import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import UbiqModel

extension PeerTransport {
    /// Connects to the device listening on `port` at any of `hosts` (addresses or names, each
    /// possibly standing for several addresses), racing them as `ConnectionRace` says: IPv6
    /// and IPv4 interleaved, a new attempt every `attemptDelay` or as soon as one fails. The
    /// first attempt that completes TLS and authenticates (as `device`, when given) is kept;
    /// the others are cancelled, and one that connects too late is closed.
    ///
    /// Throws `PeerTransportError`: `unreachable` when no address answered, else the code of
    /// the first address that answered and was refused (`handshakeRefused`, `unexpectedDevice`).
    public func connect(
        hosts: [String],
        port: Int,
        expecting device: DeviceID? = nil,
        attemptDelay: Duration = ConnectionRace.defaultAttemptDelay
    ) async throws -> PeerConnection {
        let clock = ContinuousClock()
        let started = clock.now
        var addresses: [SocketAddress] = []
        var failures: [PeerTransportError] = []
        for host in hosts {
            do { addresses += try await PeerAddressResolver.resolve(host, port: port) } catch let error as PeerTransportError {
                failures.append(error)
            }
        }
        let ordered = ConnectionRace.ordered(addresses) { $0.protocol == .inet6 ? .ipv6 : .ipv4 }
        let (connection, attemptFailures) = await race(ordered, expecting: device, attemptDelay: attemptDelay)
        if let connection {
            logger.debug("Dialled a peer", metadata: [
                "peer.address": "\(connection.remoteAddress)", "peer.device": "\(connection.remoteDeviceID)",
                "addresses": "\(ordered.count)", "elapsed": "\(clock.now - started)",
            ])
            return connection
        }
        failures += attemptFailures
        let code = failures.first { $0.code != .unreachable }?.code ?? .unreachable
        let reasons = failures.map(\.message).joined(separator: " ")
        let place = hosts.count == 1 ? "\(hosts[0]) port \(port)" : "any of \(hosts.joined(separator: ", ")) port \(port)"
        throw PeerTransportError(code, "Could not connect to a peer at \(place). \(reasons)")
    }

    private enum Outcome: Sendable {
        case connected(Int, PeerConnection)
        case failed(Int, PeerTransportError)
        case delayElapsed(Int)
    }

    /// Runs the race; returns the kept connection, or the failures in attempt order.
    private func race(
        _ addresses: [SocketAddress],
        expecting device: DeviceID?,
        attemptDelay: Duration
    ) async -> (PeerConnection?, [PeerTransportError]) {
        await withTaskGroup(of: Outcome.self) { group in
            var race = ConnectionRace(attempts: addresses.count)
            var actions = race.begin()
            var connections: [Int: PeerConnection] = [:]
            var failures: [Int: PeerTransportError] = [:]
            var kept: PeerConnection?
            while true {
                for action in actions {
                    switch action {
                    case .startAttempt(let attempt):
                        group.addTask {
                            do {
                                return .connected(attempt, try await self.attempt(addresses[attempt], expecting: device))
                            } catch {
                                return .failed(attempt, error as? PeerTransportError ?? PeerTransportError(.unreachable, "\(error)"))
                            }
                        }
                    case .startTimer(let timer):
                        group.addTask {
                            try? await Task.sleep(for: attemptDelay)
                            return .delayElapsed(timer)
                        }
                    case .keep(let attempt, _):
                        kept = connections.removeValue(forKey: attempt)
                        group.cancelAll()
                    case .close(let attempt):
                        await connections.removeValue(forKey: attempt)?.close()
                    case .fail:
                        group.cancelAll()
                    }
                }
                guard let outcome = await group.next() else { break }
                switch outcome {
                case .connected(let attempt, let connection):
                    connections[attempt] = connection
                    actions = race.attemptSucceeded(attempt)
                case .failed(let attempt, let error):
                    if !race.isFinished {
                        failures[attempt] = error
                        logger.debug("Peer address failed", metadata: ["peer.address": "\(addresses[attempt].peerText)", "reason": "\(error)"])
                    }
                    actions = race.attemptFailed(attempt)
                case .delayElapsed(let timer):
                    actions = race.delayElapsed(timer)
                }
            }
            return (kept, failures.sorted { $0.key < $1.key }.map(\.value))
        }
    }

    /// One attempt: TCP, TLS, the preface both ways, and the device check. Cancelling it
    /// closes its socket at once, whether it is still connecting or handshaking.
    private func attempt(_ address: SocketAddress, expecting device: DeviceID?) async throws -> PeerConnection {
        let clientContext = self.clientContext
        let maximumFrameLength = self.maximumFrameLength
        let timeout = TimeAmount(handshakeTimeout)
        let refusing = self.refusing
        let trust = self.trust
        let logger = self.logger
        let socket = AttemptSocket()
        let pending: PeerPipeline.Pending
        do {
            pending = try await withTaskCancellationHandler {
                try await ClientBootstrap(group: group)
                    .connectTimeout(timeout)
                    .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                    .connect(to: address) { channel in
                        guard socket.adopt(channel) else { return channel.eventLoop.makeFailedFuture(CancellationError()) }
                        return channel.eventLoop.makeCompletedFuture {
                            try PeerPipeline.configure(
                                channel,
                                tlsHandler: {
                                    try NIOSSLClientHandler(context: clientContext, serverHostname: nil, customVerificationCallback: $0)
                                },
                                maximumFrameLength: maximumFrameLength,
                                handshakeTimeout: timeout,
                                trust: trust,
                                logger: logger,
                                refusing: refusing
                            )
                        }
                    }
            } onCancel: {
                socket.cancel()
            }
        } catch {
            let reason = ConnectionFailure.reason(error, address: address.peerText) ?? "\(address.peerText) did not answer: \(error)"
            throw PeerTransportError(.unreachable, "\(reason).")
        }
        do {
            let remote = try await withTaskCancellationHandler {
                try await pending.authenticated.get()
            } onCancel: {
                socket.cancel()
            }
            let deviceID = remote.device
            if let device, deviceID != device {
                try? await pending.channel.executeThenClose { _, _ in }
                throw PeerTransportError(.unexpectedDevice, "\(address.peerText) is device \(deviceID), not \(device); it may have taken over another workstation's address.")
            }
            return await PeerConnectionScope.detached(pending, remote: remote, maximumFrameLength: maximumFrameLength)
        } catch let error as PeerTransportError {
            throw error
        } catch {
            try? await pending.channel.executeThenClose { _, _ in }
            logger.debug("Peer handshake failed", metadata: ["peer.address": "\(pending.remoteAddress)", "reason": "\(error)"])
            let reason = ConnectionFailure.reason(error, address: address.peerText) ?? "\(error)"
            throw PeerTransportError(.handshakeRefused, "\(address.peerText) and this device did not accept each other: \(reason).")
        }
    }
}

/// The socket of one connection attempt, for cancelling it from outside: a cancel before the
/// socket exists stops it from being set up, one after closes it.
private final class AttemptSocket: Sendable {
    private enum State {
        case waiting
        case open(any Channel)
        case cancelled
    }

    private let state = Mutex(State.waiting)

    /// False when the attempt was cancelled before its socket existed.
    func adopt(_ channel: any Channel) -> Bool {
        state.withLock { state in
            guard case .waiting = state else { return false }
            state = .open(channel)
            return true
        }
    }

    func cancel() {
        let channel: (any Channel)? = state.withLock { state in
            defer { state = .cancelled }
            if case .open(let channel) = state { return channel }
            return nil
        }
        channel?.close(promise: nil)
    }
}
