import Foundation
import Logging
import Synchronization
import Testing
import UbiqModel
import UbiqDiscovery

/// Two agents on a real LAN with real avahi-daemons: run this test at the same time on two
/// hosts (network namespaces joined by a bridge, DESIGN.md §7), never in the machine's own
/// namespace. Each host announces itself and a decoy of another account, and checks that it
/// sees the other host with the right TXT and address, never the decoy, then a port change,
/// a withdrawal (`lost`) and a return (`found`). The hosts wait for each other through marker
/// files in a shared folder.
///
/// UBIQ_DISCOVERY_LIVE=1, UBIQ_DISCOVERY_SELF / _PEER (device IDs), UBIQ_DISCOVERY_PEER_ADDRESS
/// (the peer's IPv4 address), UBIQ_DISCOVERY_SYNC (the shared folder).
///
/// With UBIQ_DISCOVERY_LIVE_KILL=1 instead of a peer, one host checks that stopping its
/// avahi-daemon (`avahi-daemon --kill`, in that namespace only) ends browsing with `lost` and
/// `stopped(unavailable)` and fails the advertiser.
@Suite(.enabled(if: LiveSettings.isLive, "set UBIQ_DISCOVERY_LIVE=1 inside a namespace LAN with avahi-daemon"))
struct LiveDiscoveryTests {
    let environment = ProcessInfo.processInfo.environment
    let account = try! AccountTag("0123456789abcdef")
    let logger = {
        var logger = Logger(label: "ubiq.discovery.live")
        logger.logLevel = ProcessInfo.processInfo.environment["UBIQ_DISCOVERY_LOG"] == "debug" ? .debug : .info
        return logger
    }()

    func setting(_ name: String) throws -> String {
        try #require(environment["UBIQ_DISCOVERY_\(name)"], "UBIQ_DISCOVERY_\(name) is not set")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["UBIQ_DISCOVERY_PEER"] != nil), .timeLimit(.minutes(3)))
    func twoHostsFollowEachOther() async throws {
        let me = DeviceID(try setting("SELF")), peer = DeviceID(try setting("PEER"))
        let peerAddress = try setting("PEER_ADDRESS"), sync = try setting("SYNC")
        let markers = Markers(folder: sync, me: me.rawValue, peer: peer.rawValue)

        let browser = try await ServiceBrowser.start(filter: DiscoveryFilter(accountTag: account, excludedDevice: me), logger: logger)
        let log = EventLog<DiscoveryEvent>()
        let reader = Task { for await event in browser.events { log.append(event) } }
        defer { reader.cancel() }

        let decoyID = DeviceID("DECOY-" + me.rawValue.prefix(8))
        let decoy = try await ServiceAdvertiser.start(
            DiscoveryRecord(deviceID: decoyID, accountTag: AccountTag("fedcba9876543210"), protocolVersions: [1], port: 6999), logger: logger)
        var advertiser = try await ServiceAdvertiser.start(
            DiscoveryRecord(deviceID: me, accountTag: account, protocolVersions: [1, 2], port: 7000), logger: logger)

        // 1. Found, with the peer's TXT, port and address (IPv6 and IPv4 answers may come
        // apart, so the IPv4 address may only arrive in a change).
        let found = try await log.waitFor("peer found") { if case .found(let p) = $0, p.deviceID == peer { p } else { nil } }
        print("live: found \(found)")
        #expect(found.instance == peer.rawValue)
        #expect(found.accountTag == account && found.protocolVersions == [1, 2] && found.port == 7000)
        _ = try await log.waitFor("the peer's IPv4 address") {
            if case .found(let p) = $0, p.addresses.contains(peerAddress) { p }
            else if case .changed(let p) = $0, p.addresses.contains(peerAddress) { p } else { nil }
        }
        try await markers.meet("found")

        // 2. A port change is seen as a change.
        try await advertiser.updatePort(7001)
        let changed = try await log.waitFor("port change") { if case .changed(let p) = $0, p.deviceID == peer, p.port == 7001 { p } else { nil } }
        print("live: changed \(changed)")
        try await markers.meet("changed")

        // 3. Withdrawn: lost.
        await advertiser.close()
        let lost = try await log.waitFor("peer lost") { if case .lost(let p) = $0, p.deviceID == peer { p } else { nil } }
        print("live: lost \(lost)")
        try await markers.meet("lost")

        // 4. Back again: found again, on the new port.
        advertiser = try await ServiceAdvertiser.start(
            DiscoveryRecord(deviceID: me, accountTag: account, protocolVersions: [1, 2], port: 7002), logger: logger)
        let back = try await log.waitFor("peer back") {
            if case .found(let p) = $0, p.deviceID == peer, p.port == 7002 { p } else { nil }
        }
        print("live: back \(back)")
        try await markers.meet("back")

        #expect(!log.events.contains { event in
            switch event {
            case .found(let p), .changed(let p), .lost(let p): p.deviceID == decoyID || p.deviceID.rawValue.hasPrefix("DECOY") || p.deviceID == me
            case .stopped: true
            }
        })
        print("live: all events \(log.events)")
        await advertiser.close()
        await decoy.close()
        await browser.close()
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["UBIQ_DISCOVERY_LIVE_KILL"] == "1"), .timeLimit(.minutes(1)))
    func avahiGoingAwayStopsDiscovery() async throws {
        let me = DeviceID(try setting("SELF"))
        let browser = try await ServiceBrowser.start(filter: DiscoveryFilter(accountTag: account), logger: logger)
        let log = EventLog<DiscoveryEvent>()
        let reader = Task { for await event in browser.events { log.append(event) } }
        defer { reader.cancel() }
        let advertiser = try await ServiceAdvertiser.start(
            DiscoveryRecord(deviceID: me, accountTag: account, protocolVersions: [1], port: 7100), logger: logger)
        let registrations = EventLog<AdvertiserEvent>()
        let registrationReader = Task { for await event in advertiser.events { registrations.append(event) } }
        defer { registrationReader.cancel() }

        _ = try await log.waitFor("own service found") { if case .found(let p) = $0, p.deviceID == me { p } else { nil } }
        let kill = try Process.run(URL(fileURLWithPath: "/usr/sbin/avahi-daemon"), arguments: ["--kill"])
        kill.waitUntilExit()

        let lost = try await log.waitFor("own service lost") { if case .lost(let p) = $0, p.deviceID == me { p } else { nil } }
        let stopped = try await log.waitFor("browser stopped") { if case .stopped(let error) = $0 { error } else { nil } }
        let failed = try await registrations.waitFor("registration failed") { if case .failed(let error) = $0 { error } else { nil } }
        print("live: lost \(lost)\nlive: stopped: \(stopped.code): \(stopped.reason)\nlive: advertiser: \(failed.code): \(failed.reason)")
        #expect(stopped.code == .unavailable && failed.code == .unavailable)

        let began = ContinuousClock.now
        await #expect(throws: DiscoveryError.self) { _ = try await ServiceBrowser.start(logger: logger) }
        print("live: a new browser failed after \(ContinuousClock.now - began)")
        await advertiser.close()
        await browser.close()
    }
}

/// Events as they arrive, for waits with a deadline.
final class EventLog<Event: Sendable>: Sendable {
    private let storage = Mutex<[Event]>([])

    var events: [Event] { storage.withLock { $0 } }

    func append(_ event: Event) { storage.withLock { $0.append(event) } }

    func waitFor<T>(_ what: String, timeout: Duration = .seconds(30), _ match: (Event) -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let hit = events.lazy.compactMap(match).first { return hit }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw WaitTimedOut(what: what, events: events)
    }
}

struct WaitTimedOut: Error, CustomStringConvertible {
    let what: String
    let events: [any Sendable]
    var description: String { "timed out waiting for \(what); events: \(events)" }
}

/// Step barriers between the two hosts: files in a shared folder.
struct Markers {
    let folder: String
    let me: String
    let peer: String

    func meet(_ step: String) async throws {
        _ = FileManager.default.createFile(atPath: "\(folder)/\(me).\(step)", contents: nil)
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: "\(folder)/\(peer).\(step)") {
            guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: "the peer to reach '\(step)'", events: []) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
