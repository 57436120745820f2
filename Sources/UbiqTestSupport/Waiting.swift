import Foundation

/// A condition that did not become true before its deadline.
public struct TimedOut: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// Checks `condition` until it holds or `timeout` passes. The check interval only bounds how
/// soon a met condition is noticed; it stands in for no synchronisation.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(50),
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
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TimedOut(description: "socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw TimedOut(description: "could not bind a free port") }
    return Int(UInt16(bigEndian: address.sin_port))
}
