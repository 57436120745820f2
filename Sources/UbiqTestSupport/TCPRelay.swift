import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP relay a test can cut and heal: a network partition between two agents on
/// one machine without namespaces. The dialing agent is pointed at ``port``; the relay
/// forwards each connection to the target port until ``sever()`` resets every connection
/// and refuses new ones, and forwards again after ``heal()``. ``limit(bytesPerSecond:)`` makes
/// it a slow link, so that a transfer lasts a known least time however fast the machine is.
public final class TCPRelay: @unchecked Sendable {
    public let port: Int
    private let target: Int
    private let listener: Int32
    private let lock = NSLock()
    private var open: [ObjectIdentifier: Pair] = [:]
    private var severed = false
    /// Bytes per second each direction of each connection may carry; nil for no limit.
    private var bytesPerSecond: Int?
    private var closed = false

    /// Both sockets of one relayed connection; the last of its two pumps to finish closes them.
    final class Pair: @unchecked Sendable {
        let client: Int32, upstream: Int32
        private let lock = NSLock()
        private var running = 2

        init(client: Int32, upstream: Int32) {
            self.client = client
            self.upstream = upstream
        }

        func shutdownBoth() {
            Glibc.shutdown(client, Int32(SHUT_RDWR))
            Glibc.shutdown(upstream, Int32(SHUT_RDWR))
        }

        /// True for the pump that finished last.
        func pumpEnded() -> Bool {
            lock.withLock {
                running -= 1
                return running == 0
            }
        }
    }

    public init(to targetPort: Int) throws {
        target = targetPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TimedOut(description: "relay: socket() failed") }
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = TCPRelay.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(listener)
            throw TimedOut(description: "relay: cannot listen on loopback")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { close() }

    /// Resets every relayed connection and refuses new ones until ``heal()``.
    public func sever() {
        let pairs = lock.withLock {
            severed = true
            return Array(open.values)
        }
        for pair in pairs { pair.shutdownBoth() }
    }

    public func heal() {
        lock.withLock { severed = false }
    }

    /// Caps each direction of each connection at `bytesPerSecond` from now on (nil lifts it).
    public func limit(bytesPerSecond: Int?) {
        lock.withLock { self.bytesPerSecond = bytesPerSecond }
    }

    /// Stops listening and ends every connection.
    public func close() {
        let (pairs, wasClosed) = lock.withLock {
            defer { closed = true }
            return (Array(open.values), closed)
        }
        guard !wasClosed else { return }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        for pair in pairs { pair.shutdownBoth() }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            let (stop, refuse) = lock.withLock { (closed, severed) }
            if stop {
                if client >= 0 { Glibc.close(client) }
                Glibc.close(listener)
                return
            }
            guard client >= 0 else { continue }
            guard !refuse, let upstream = connectTarget() else {
                Glibc.close(client)
                continue
            }
            let pair = Pair(client: client, upstream: upstream)
            lock.withLock { open[ObjectIdentifier(pair)] = pair }
            for (from, to) in [(client, upstream), (upstream, client)] {
                Thread { [self] in
                    pump(from: from, to: to)
                    Glibc.shutdown(to, Int32(SHUT_WR))
                    if pair.pumpEnded() {
                        _ = lock.withLock { open.removeValue(forKey: ObjectIdentifier(pair)) }
                        Glibc.close(pair.client)
                        Glibc.close(pair.upstream)
                    }
                }.start()
            }
        }
    }

    private func connectTarget() -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = Self.loopback(port: target)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if connected { return fd }
        Glibc.close(fd)
        return nil
    }

    private func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            if let rate = lock.withLock({ bytesPerSecond }), rate > 0 {
                // Holding the bytes back for as long as the link would take to carry them.
                usleep(UInt32(min(Int(UInt32.max), count * 1_000_000 / rate)))
            }
            var sent = 0
            while sent < count {
                let n = buffer.withUnsafeBytes { send(to, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                sent += n
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        return address
    }
}
