import Synchronization
import Foundation

/// A condition that did not become true before its deadline.
public struct TimedOut: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// Checks `condition` until it holds or `timeout` passes. The check interval only bounds how
/// soon a met condition is noticed; it stands in for no synchronisation. Two minutes by
/// default: the whole suite in parallel on a machine half as fast as the usual one (an Intel
/// Xeon, 2026-12-03) took more than one for conditions a quiet run meets in seconds.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(120), every interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var lastError: (any Error)?
    while clock.now < deadline {
        do {
            if try await condition() { return }
            lastError = nil
        } catch {
            lastError = error
        }
        try await Task.sleep(for: interval)
    }
    throw TimedOut(description: "timed out after \(timeout) waiting for \(what)" + (lastError.map { " (last error: \($0))" } ?? ""))
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
public func freeLoopbackPort() throws -> Int {
    for _ in 0..<500 {
        let port = 20_000 + nextPortCandidate.wrappingAdd(1, ordering: .relaxed).oldValue % 12_000
        if canBindLoopback(port) { return port }
    }
    throw TimedOut(description: "could not find a free loopback port between 20000 and 32000")
}

/// Ports are taken below the kernel's ephemeral range (32768 and up here): a port the kernel
/// handed out and took back could be given to the next outgoing connection, and an agent
/// told to listen on it would then fail with "Address already in use". A random start keeps
/// test processes running side by side apart; the counter keeps one process's agents apart.
private let nextPortCandidate = Atomic<Int>(Int.random(in: 0..<12_000))

private func canBindLoopback(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
