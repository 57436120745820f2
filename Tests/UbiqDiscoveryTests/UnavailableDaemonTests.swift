import Foundation
import Logging
import Testing
import UbiqModel
@testable import UbiqDiscovery

/// Without avahi, starting fails at once with `unavailable` and a reason a user can act on.
/// The tests point libdbus at a system bus that is not there (`DBUS_SYSTEM_BUS_ADDRESS`), so
/// they never reach a real avahi-daemon and never multicast, whatever runs on the machine.
@Suite(.serialized, .disabled(if: LiveSettings.isLive, "UBIQ_DISCOVERY_LIVE=1 talks to the real avahi-daemon instead"),
       .timeLimit(.minutes(3)))
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
    }

    /// How long the dns_sd call that fails takes on the loop's own thread: where a D-Bus
    /// reply timeout (libdbus's default is 25 s) would be waited out. Timed there, not around
    /// the `await`, because a busy CI host can keep the test's task from resuming for longer
    /// than that (22.6 s once, for every test of the process alike).
    func timeOnTheLoopThread<Driver: DNSServiceDriver>(_ loop: DNSServiceLoop<Driver>,
                                                _ body: @escaping @Sendable (Driver) -> Result<Void, DiscoveryError>) async -> (failed: Bool, took: Duration) {
        let outcome = await loop.call { driver -> (Bool, Duration) in
            let began = ContinuousClock.now
            let result = body(driver)
            let took = ContinuousClock.now - began
            if case .failure = result { return (true, took) }
            return (false, took)
        }
        loop.stop()
        await loop.waitUntilFinished()
        return outcome.map { (failed: $0.0, took: $0.1) } ?? (failed: false, took: .zero)
    }

    /// "At once" means without waiting out a D-Bus reply timeout.
    @Test func withoutABusTheFailureComesAtOnce() async throws {
        let logger = logger, record = record
        let browser = try DNSServiceLoop<BrowserDriver>(name: "ubiq-discovery-test-browser") { context in
            BrowserDriver(context: context, filter: .none, logger: logger, continuation: AsyncStream.makeStream(of: DiscoveryEvent.self).continuation)
        }
        let browsing = await timeOnTheLoopThread(browser) { $0.start() }
        #expect(browsing.failed)
        #expect(browsing.took < .seconds(5))
        let advertiser = try DNSServiceLoop<AdvertiserDriver>(name: "ubiq-discovery-test-advertiser") { context in
            AdvertiserDriver(context: context, record: record, logger: logger, continuation: AsyncStream.makeStream(of: AdvertiserEvent.self).continuation)
        }
        let advertising = await timeOnTheLoopThread(advertiser) { $0.register() }
        #expect(advertising.failed)
        #expect(advertising.took < .seconds(5))
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
