import Testing
import UbiqModel
@testable import UbiqDiscovery

@Suite struct PeerTrackerTests {
    let account = try! AccountTag("0123456789abcdef")
    let other = try! AccountTag("fedcba9876543210")

    func record(_ device: String, port: UInt16 = 7000, account: AccountTag? = nil, versions: [UInt32] = [1]) -> DiscoveryRecord {
        try! DiscoveryRecord(deviceID: DeviceID(device), accountTag: account ?? self.account, protocolVersions: versions, port: port)
    }

    func resolved(_ record: DiscoveryRecord, host: String = "h2.local.") -> PeerTracker.Input {
        .resolved(instance: record.instanceName, host: host, port: record.port, txt: record.encodedTXT())
    }

    func peer(_ record: DiscoveryRecord, host: String = "h2.local.", addresses: [String] = ["198.18.0.2"]) -> DiscoveredPeer {
        DiscoveredPeer(instance: record.instanceName, record: record, host: host, addresses: addresses)
    }

    /// Runs a tracker from a browse add to a reported peer.
    func found(_ tracker: inout PeerTracker, _ record: DiscoveryRecord) {
        _ = tracker.handle(.added(instance: record.instanceName, domain: "local."))
        _ = tracker.handle(resolved(record))
        _ = tracker.handle(.addressAdded(instance: record.instanceName, address: "198.18.0.2"))
        _ = tracker.handle(.settleDue(instance: record.instanceName))
    }

    @Test func aPeerIsFoundOnceItHasARecordAndItsAddressesSettled() {
        var tracker = PeerTracker(filter: .none)
        let b = record("BBBB")
        #expect(tracker.handle(.added(instance: "BBBB", domain: "local.")) == [.startResolve(instance: "BBBB", domain: "local.")])
        #expect(tracker.handle(resolved(b)) == [.queryAddresses(instance: "BBBB", host: "h2.local.")])
        #expect(tracker.handle(.addressAdded(instance: "BBBB", address: "198.18.0.2")) == [.scheduleSettle(instance: "BBBB")])
        #expect(tracker.handle(.addressAdded(instance: "BBBB", address: "fe80::2%e1")) == [])
        #expect(tracker.handle(.settleDue(instance: "BBBB")) == [.report(.found(peer(b, addresses: ["198.18.0.2", "fe80::2%e1"])))])
        #expect(tracker.handle(.settleDue(instance: "BBBB")) == [])
        #expect(tracker.handle(.addressAdded(instance: "BBBB", address: "2001:db8::2"))
                == [.report(.changed(peer(b, addresses: ["198.18.0.2", "2001:db8::2", "fe80::2%e1"])))])
    }

    @Test func aPeerGoneOrRefusedWhileSettlingIsNeverReported() {
        var tracker = PeerTracker(filter: .none)
        let b = record("BBBB")
        _ = tracker.handle(.added(instance: "BBBB", domain: "local."))
        _ = tracker.handle(resolved(b))
        _ = tracker.handle(.addressAdded(instance: "BBBB", address: "198.18.0.2"))
        #expect(tracker.handle(.removed(instance: "BBBB")) == [.stopResolve(instance: "BBBB"), .stopAddressQueries(instance: "BBBB")])
        #expect(tracker.handle(.settleDue(instance: "BBBB")) == [])

        _ = tracker.handle(.added(instance: "BBBB", domain: "local."))
        _ = tracker.handle(resolved(b))
        _ = tracker.handle(.addressAdded(instance: "BBBB", address: "198.18.0.2"))
        let refused = tracker.handle(.resolved(instance: "BBBB", host: "h2.local.", port: 7000, txt: [0]))
        #expect(!refused.contains { if case .report = $0 { true } else { false } })
        #expect(tracker.handle(.settleDue(instance: "BBBB")) == [])
    }

    @Test func everyInterfaceAndProtocolMustGoBeforeAPeerIsLost() {
        var tracker = PeerTracker(filter: .none)
        let b = record("BBBB")
        found(&tracker, b)
        #expect(tracker.handle(.added(instance: "BBBB", domain: "local.")) == [])
        #expect(tracker.handle(.removed(instance: "BBBB")) == [])
        #expect(tracker.handle(.removed(instance: "BBBB")) == [
            .stopResolve(instance: "BBBB"), .stopAddressQueries(instance: "BBBB"), .report(.lost(peer(b))),
        ])
        #expect(tracker.browsedInstances.isEmpty)
        #expect(tracker.handle(.removed(instance: "BBBB")) == [])
    }

    @Test func aPeerThatComesBackIsResolvedAndFoundAgain() {
        var tracker = PeerTracker(filter: .none)
        let b = record("BBBB")
        found(&tracker, b)
        _ = tracker.handle(.removed(instance: "BBBB"))
        #expect(tracker.handle(.added(instance: "BBBB", domain: "local.")) == [.startResolve(instance: "BBBB", domain: "local.")])
        let moved = record("BBBB", port: 7100)
        _ = tracker.handle(resolved(moved))
        #expect(tracker.handle(.addressAdded(instance: "BBBB", address: "198.18.0.2")) == [.scheduleSettle(instance: "BBBB")])
        #expect(tracker.handle(.settleDue(instance: "BBBB")) == [.report(.found(peer(moved)))])
    }

    @Test func aNewPortOrTXTIsAChange() {
        var tracker = PeerTracker(filter: .none)
        let b = record("BBBB")
        found(&tracker, b)
        let moved = record("BBBB", port: 7001)
        #expect(tracker.handle(resolved(moved)) == [.report(.changed(peer(moved)))])
        #expect(tracker.handle(resolved(moved)) == [])
        let upgraded = record("BBBB", port: 7001, versions: [1, 2])
        #expect(tracker.handle(resolved(upgraded)) == [.report(.changed(peer(upgraded)))])
    }

    @Test func aNewHostRestartsTheAddressQueries() {
        var tracker = PeerTracker(filter: .none)
        let b = record("BBBB")
        found(&tracker, b)
        #expect(tracker.handle(resolved(b, host: "h2-2.local.")) == [
            .stopAddressQueries(instance: "BBBB"), .queryAddresses(instance: "BBBB", host: "h2-2.local."),
        ])
        #expect(tracker.handle(.addressAdded(instance: "BBBB", address: "198.18.0.22"))
                == [.report(.changed(peer(b, host: "h2-2.local.", addresses: ["198.18.0.22"])))])
    }

    @Test func addressesAreCountedPerReport() {
        var tracker = PeerTracker(filter: .none)
        let b = record("BBBB")
        found(&tracker, b)
        _ = tracker.handle(.addressAdded(instance: "BBBB", address: "198.18.0.2"))
        _ = tracker.handle(.addressAdded(instance: "BBBB", address: "198.18.0.9"))
        #expect(tracker.handle(.addressRemoved(instance: "BBBB", address: "198.18.0.2")) == [])
        #expect(tracker.handle(.addressRemoved(instance: "BBBB", address: "198.18.0.2")) == [.report(.changed(peer(b, addresses: ["198.18.0.9"])))])
        // The last address going away leaves the peer as last reported.
        #expect(tracker.handle(.addressRemoved(instance: "BBBB", address: "198.18.0.9")) == [])
    }

    @Test func malformedRecordsAreIgnoredOnceWithAReason() {
        var tracker = PeerTracker(filter: .none)
        _ = tracker.handle(.added(instance: "EVIL", domain: "local."))
        let bad = PeerTracker.Input.resolved(instance: "EVIL", host: "h9.local.", port: 7000, txt: [3] + Array("v=1".utf8))
        let actions = tracker.handle(bad)
        guard case .ignore(let instance, let reason, let malformed)? = actions.first, actions.count == 1 else {
            Issue.record("expected one ignore, got \(actions)"); return
        }
        #expect(instance == "EVIL" && malformed && reason.contains("dev"))
        #expect(tracker.handle(bad) == [])
    }

    @Test func aRecordThatTurnsBadIsLost() {
        var tracker = PeerTracker(filter: .none)
        let b = record("BBBB")
        found(&tracker, b)
        let actions = tracker.handle(.resolved(instance: "BBBB", host: "h2.local.", port: 7000, txt: [0]))
        #expect(actions.count == 3)
        #expect(actions.dropFirst() == [.stopAddressQueries(instance: "BBBB"), .report(.lost(peer(b)))])
        _ = tracker.handle(resolved(b))
        _ = tracker.handle(.addressAdded(instance: "BBBB", address: "198.18.0.2"))
        #expect(tracker.handle(.settleDue(instance: "BBBB")) == [.report(.found(peer(b)))])
    }

    @Test func theFilterDropsOtherAccountsAndThisDevice() {
        var tracker = PeerTracker(filter: DiscoveryFilter(accountTag: account, excludedDevice: DeviceID("AAAA")))
        for (record, reason) in [(record("CCCC", account: other), "another account"), (record("AAAA"), "own service")] {
            _ = tracker.handle(.added(instance: record.instanceName, domain: "local."))
            let actions = tracker.handle(resolved(record))
            guard case .ignore(_, let why, let malformed)? = actions.first, actions.count == 1 else {
                Issue.record("expected one ignore, got \(actions)"); continue
            }
            #expect(why.contains(reason) && !malformed)
        }
        found(&tracker, record("BBBB"))
        #expect(tracker.drain() == [.lost(peer(record("BBBB")))])
    }

    @Test func failedResolvesAreRetriedWhileBrowsed() {
        var tracker = PeerTracker(filter: .none)
        _ = tracker.handle(.added(instance: "BBBB", domain: "local."))
        #expect(tracker.handle(.resolveFailed(instance: "BBBB")) == [.stopResolve(instance: "BBBB"), .scheduleRetry(instance: "BBBB")])
        #expect(tracker.handle(.added(instance: "BBBB", domain: "local.")) == [])
        #expect(tracker.handle(.retryDue(instance: "BBBB")) == [.startResolve(instance: "BBBB", domain: "local.")])
        _ = tracker.handle(.resolveFailed(instance: "BBBB"))
        _ = tracker.handle(.removed(instance: "BBBB"))
        _ = tracker.handle(.removed(instance: "BBBB"))
        #expect(tracker.handle(.retryDue(instance: "BBBB")) == [])
    }

    @Test func failedAddressQueriesAreRetried() {
        var tracker = PeerTracker(filter: .none)
        let b = record("BBBB")
        found(&tracker, b)
        #expect(tracker.handle(.addressQueryFailed(instance: "BBBB")) == [.stopAddressQueries(instance: "BBBB"), .scheduleRetry(instance: "BBBB")])
        #expect(tracker.handle(.retryDue(instance: "BBBB")) == [.queryAddresses(instance: "BBBB", host: "h2.local.")])
        #expect(tracker.handle(.addressAdded(instance: "BBBB", address: "198.18.0.2")) == [])
    }

    @Test func drainLosesEveryReportedPeer() {
        var tracker = PeerTracker(filter: .none)
        found(&tracker, record("BBBB"))
        found(&tracker, record("CCCC"))
        _ = tracker.handle(.added(instance: "DDDD", domain: "local."))
        #expect(tracker.drain() == [.lost(peer(record("BBBB"))), .lost(peer(record("CCCC")))])
        #expect(tracker.browsedInstances.isEmpty)
    }
}
