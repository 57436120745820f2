import Logging
import Testing
@_spi(Testing) import UbiqIdentity
import UbiqTransport

/// Devices and transports for the tests: every device is made in memory and listens on an
/// ephemeral port of 127.0.0.1.
enum Fixtures {
    static let logger = Logger(label: "ubiq.transport.tests")

    static func transport(_ identity: DeviceIdentity, maximumFrameLength: Int? = nil) throws -> PeerTransport {
        if let maximumFrameLength {
            return try PeerTransport(identity: identity, logger: logger, maximumFrameLength: maximumFrameLength)
        }
        return try PeerTransport(identity: identity, logger: logger)
    }
}

struct DeadlineExceeded: Error {}

/// Runs `body`, failing if it has not finished within `seconds` (a bound on a hang, not a
/// stand-in for synchronisation).
func within<T: Sendable>(_ seconds: Int = 20, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw DeadlineExceeded()
        }
        let result = try await group.next()!
        group.cancelAll()
        return result
    }
}

extension PeerListener {
    /// The next authenticated connection.
    func next() async throws -> PeerConnection {
        try await within {
            for await connection in self.connections { return connection }
            throw DeadlineExceeded()
        }
    }
}

extension PeerConnection {
    /// The next `count` frames.
    func receive(_ count: Int) async throws -> [[UInt8]] {
        try await within {
            var received: [[UInt8]] = []
            guard count > 0 else { return received }
            for try await frame in self.frames {
                received.append(Array(frame.readableBytesView))
                if received.count == count { break }
            }
            return received
        }
    }
}

func expectTransportError(
    _ code: PeerTransportError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    let error = await #expect(throws: PeerTransportError.self, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}
