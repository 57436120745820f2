import Foundation
import Testing
import UbiqTestSupport

/// The shaped LAN that the swarm's tests and benchmark stand on: a host's link carries no
/// more than its rate, each way, so that links and not this 2-core machine are the limit.
@Suite(lanAvailable)
struct ShapedLANTests {
    /// Bytes sent from `source` to `destination` over TCP, timed by the receiver from its
    /// first byte to the last: the rate the link let through.
    private func transfer(_ bytes: Int, from source: LANHost, to destination: LANHost) async throws -> Double {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("ubiqlan-shape-\(getpid())-\(destination.index).log").path
        try? FileManager.default.removeItem(atPath: log)
        defer { try? FileManager.default.removeItem(atPath: log) }
        let receive = """
            import socket, sys, time
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("0.0.0.0", 5201)); s.listen(1); print("listening", flush=True)
            c, _ = s.accept(); first = None; total = 0
            while True:
                b = c.recv(1 << 16)
                if not b: break
                if first is None: first = time.monotonic()
                total += len(b)
            print(total, time.monotonic() - first, flush=True)
            """
        let receiver = try destination.spawn(["python3", "-c", receive], log: log)
        defer { if receiver.isRunning { receiver.terminate() } }
        try await waitUntil("the receiver to listen", timeout: .seconds(20)) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("listening")
        }
        let send = """
            import socket
            c = socket.create_connection(("\(destination.address)", 5201)); c.sendall(bytes(\(bytes))); c.close()
            """
        try source.output(["python3", "-c", send], timeout: .seconds(120))
        try await waitUntil("the receiver to count", timeout: .seconds(120)) { !receiver.isRunning }
        let words = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").last?.split(separator: " ") ?? []
        #expect(words.first.flatMap { Int($0) } == bytes)
        return try #require(words.last.flatMap { Double($0) })
    }

    @Test func aShapedLinkCarriesNoMoreThanItsRateEachWay() async throws {
        let lan = try await NamespaceLAN.start(hosts: 3, prefix: "ubiqlan-shape")
        defer { try? lan.close() }
        try lan.shape(lan.host(2), megabitsPerSecond: 16)
        let bytes = 4 << 20
        // 4 MiB at 16 Mbit/s is 2.1 s; what the bucket lets through at once is 32 KiB.
        let least = Double(bytes * 8) / 16_000_000 * 0.9
        let into = try await transfer(bytes, from: lan.host(1), to: lan.host(2))
        #expect(into >= least, "4 MiB reached the shaped host in \(into) s")
        let out = try await transfer(bytes, from: lan.host(2), to: lan.host(3))
        #expect(out >= least, "4 MiB left the shaped host in \(out) s")
        try lan.unshape(lan.host(2))
        let free = try await transfer(bytes, from: lan.host(2), to: lan.host(3))
        #expect(free < into, "unshaped, 4 MiB took \(free) s")
    }
}
