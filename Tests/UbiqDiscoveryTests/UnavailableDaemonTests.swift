import Foundation
import Logging
import Testing
import UbiqModel
@testable import UbiqDiscovery

/// Without avahi, starting fails at once with `unavailable` and a reason a user can act on.
/// The tests point libdbus at a system bus that is not there (`DBUS_SYSTEM_BUS_ADDRESS`), so
/// they never reach a real avahi-daemon and never multicast, whatever runs on the machine.
@Suite(.serialized, .disabled(if: LiveSettings.isLive, "UBIQ_DISCOVERY_LIVE=1 talks to the real avahi-daemon instead"),
       .timeLimit(.minutes(1)))
final class UnavailableDaemonTests {
    let folder: String
    let previousBusAddress = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"]
    let logger = Logger(label: "ubiq.discovery.test") { _ in SwiftLogNoOpLogHandler() }
    let record = try! DiscoveryRecord(deviceID: DeviceID("AAAAAAAA"), accountTag: AccountTag("0123456789abcdef"), protocolVersions: [1], port: 7000)

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ubiqdisc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        pointSystemBus(at: folder + "/system_bus_socket")
    }

    deinit {
        if let previousBusAddress {
            setenv("DBUS_SYSTEM_BUS_ADDRESS", previousBusAddress, 1)
        } else {
            unsetenv("DBUS_SYSTEM_BUS_ADDRESS")
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    func pointSystemBus(at path: String) {
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=\(path)", 1)
    }

    func expectUnavailable(_ start: () async throws -> Void, mentioning detail: String) async {
        let began = ContinuousClock.now
        do {
            try await start()
            Issue.record("started without avahi-daemon")
        } catch let error as DiscoveryError {
            #expect(error.code == .unavailable)
            #expect(error.reason.hasPrefix("avahi-daemon is not running ("))
            #expect(error.reason.contains(detail))
            #expect(error.reason.hasSuffix("discovery is off, static peers still work"))
        } catch {
            Issue.record("not a DiscoveryError: \(error)")
        }
        // "At once" means without waiting out a D-Bus reply timeout (libdbus's default is
        // 25 s). The margin is wide because a loaded CI host can stall the whole test
        // process for seconds; a 5 s bound failed there at 5.5 s.
        #expect(ContinuousClock.now - began < .seconds(20))
    }

    @Test func browsingWithoutABusIsUnavailable() async {
        await expectUnavailable({ _ = try await ServiceBrowser.start(logger: logger) },
                                mentioning: "no D-Bus system bus at \(folder)/system_bus_socket")
    }

    @Test func advertisingWithoutABusIsUnavailable() async {
        await expectUnavailable({ _ = try await ServiceAdvertiser.start(record, logger: logger) },
                                mentioning: "no D-Bus system bus at \(folder)/system_bus_socket")
    }

    /// A socket file left by a D-Bus that is gone: the reason says the socket exists.
    @Test func aStaleBusSocketIsUnavailable() async throws {
        let path = folder + "/stale_socket"
        try bindAndCloseUnixSocket(at: path)
        pointSystemBus(at: path)
        await expectUnavailable({ _ = try await ServiceBrowser.start(logger: logger) },
                                mentioning: "socket exists at \(path) but avahi-daemon did not answer")
        await expectUnavailable({ _ = try await ServiceAdvertiser.start(record, logger: logger) },
                                mentioning: "socket exists at \(path)")
    }

    /// Each failed start ends its loop thread and deallocates everything; many in a row
    /// neither hang nor pile up.
    @Test func repeatedFailuresLeaveNothingBehind() async {
        let threadsBefore = threadCount()
        for _ in 0..<25 {
            await #expect(throws: DiscoveryError.self) { _ = try await ServiceBrowser.start(logger: logger) }
            await #expect(throws: DiscoveryError.self) { _ = try await ServiceAdvertiser.start(record, logger: logger) }
        }
        // Other suites in this process start threads too; a leak per failure would add 50.
        #expect(threadCount() <= threadsBefore + 20)
    }

    func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    func bindAndCloseUnixSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path.utf8.prefix(buffer.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
    }
}

enum LiveSettings {
    static var isLive: Bool { ProcessInfo.processInfo.environment["UBIQ_DISCOVERY_LIVE"] == "1" }
}
