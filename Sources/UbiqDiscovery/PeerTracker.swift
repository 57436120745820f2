/// The browser's bookkeeping as a pure state machine: browse, resolve and address results go
/// in, the DNS-SD requests to start or stop and the events to report come out. The
/// `ServiceBrowser` loop performs the actions; tests drive it without a daemon.
///
/// Per instance: the first browse add starts a resolve, which stays open so later TXT or port
/// changes arrive; an accepted record starts A/AAAA queries on its host; once it has a record
/// and an address the peer is reported `found` after a short settling delay, so that IPv4 and
/// IPv6 addresses, which arrive separately, come in one event. A resolve or query that fails is
/// retried after a delay while the instance is still browsed. The last browse remove reports
/// `lost`.
struct PeerTracker {
    enum Input: Hashable {
        /// A browse add; avahi sends one per interface and IP protocol.
        case added(instance: String, domain: String)
        case removed(instance: String)
        case resolved(instance: String, host: String, port: UInt16, txt: [UInt8])
        case resolveFailed(instance: String)
        case addressAdded(instance: String, address: String)
        case addressRemoved(instance: String, address: String)
        case addressQueryFailed(instance: String)
        case retryDue(instance: String)
        case settleDue(instance: String)
    }

    enum Action: Hashable {
        case startResolve(instance: String, domain: String)
        case stopResolve(instance: String)
        /// Starts A and AAAA queries for `host`, replacing any running for the instance.
        case queryAddresses(instance: String, host: String)
        case stopAddressQueries(instance: String)
        /// Feed `.retryDue(instance)` back after the retry delay.
        case scheduleRetry(instance: String)
        /// Feed `.settleDue(instance)` back after the settling delay.
        case scheduleSettle(instance: String)
        case report(DiscoveryEvent)
        /// A resolved record is not reported; `malformed` tells a bad record from a filtered one.
        case ignore(instance: String, reason: String, malformed: Bool)
    }

    private struct Instance {
        var domain: String
        var presence = 0
        var resolving = false
        var querying = false
        var retryPending = false
        var settling = false
        var host: String?
        var record: DiscoveryRecord?
        /// Address → how many (interface, IP protocol) pairs report it; avahi reports each pair.
        var addresses: [String: Int] = [:]
        var reported: DiscoveredPeer?
        var lastRejection: String?
    }

    let filter: DiscoveryFilter
    private var instances: [String: Instance] = [:]

    init(filter: DiscoveryFilter) { self.filter = filter }

    /// Instances currently browsed (for tests and logs).
    var browsedInstances: Set<String> { Set(instances.keys) }

    mutating func handle(_ input: Input) -> [Action] {
        switch input {
        case .added(let name, let domain):
            var instance = instances[name] ?? Instance(domain: domain)
            instance.presence += 1
            var actions: [Action] = []
            if !instance.resolving && !instance.retryPending {
                instance.resolving = true
                actions.append(.startResolve(instance: name, domain: instance.domain))
            }
            instances[name] = instance
            return actions

        case .removed(let name):
            guard var instance = instances[name] else { return [] }
            instance.presence -= 1
            guard instance.presence <= 0 else { instances[name] = instance; return [] }
            instances[name] = nil
            var actions: [Action] = []
            if instance.resolving { actions.append(.stopResolve(instance: name)) }
            if instance.querying { actions.append(.stopAddressQueries(instance: name)) }
            if let reported = instance.reported { actions.append(.report(.lost(reported))) }
            return actions

        case .resolved(let name, let host, let port, let txt):
            guard var instance = instances[name] else { return [] }
            let actions = resolve(&instance, name: name, host: host, port: port, txt: txt)
            instances[name] = instance
            return actions

        case .resolveFailed(let name):
            guard var instance = instances[name], instance.resolving else { return [] }
            instance.resolving = false
            var actions: [Action] = [.stopResolve(instance: name)]
            actions += scheduleRetry(&instance, name: name)
            instances[name] = instance
            return actions

        case .addressAdded(let name, let address):
            guard var instance = instances[name], instance.querying else { return [] }
            instance.addresses[address, default: 0] += 1
            let actions = publish(&instance, name: name)
            instances[name] = instance
            return actions

        case .addressRemoved(let name, let address):
            guard var instance = instances[name], instance.querying else { return [] }
            if let count = instance.addresses[address] {
                instance.addresses[address] = count > 1 ? count - 1 : nil
            }
            let actions = publish(&instance, name: name)
            instances[name] = instance
            return actions

        case .addressQueryFailed(let name):
            guard var instance = instances[name], instance.querying else { return [] }
            instance.querying = false
            instance.addresses = [:]
            var actions: [Action] = [.stopAddressQueries(instance: name)]
            actions += scheduleRetry(&instance, name: name)
            instances[name] = instance
            return actions

        case .retryDue(let name):
            guard var instance = instances[name], instance.retryPending else { return [] }
            instance.retryPending = false
            var actions: [Action] = []
            if !instance.resolving {
                instance.resolving = true
                actions.append(.startResolve(instance: name, domain: instance.domain))
            } else if !instance.querying, instance.record != nil, let host = instance.host {
                instance.querying = true
                actions.append(.queryAddresses(instance: name, host: host))
            }
            instances[name] = instance
            return actions

        case .settleDue(let name):
            guard var instance = instances[name], instance.settling else { return [] }
            instance.settling = false
            let actions = publish(&instance, name: name, settled: true)
            instances[name] = instance
            return actions
        }
    }

    /// `lost` for every peer reported and not yet lost; forgets all instances. The browser
    /// calls this when it stops.
    mutating func drain() -> [DiscoveryEvent] {
        let lost = instances.values.compactMap(\.reported).sorted { $0.instance < $1.instance }.map(DiscoveryEvent.lost)
        instances = [:]
        return lost
    }

    private func resolve(_ instance: inout Instance, name: String, host: String, port: UInt16, txt: [UInt8]) -> [Action] {
        let record: DiscoveryRecord
        do {
            record = try DiscoveryRecord.decode(txt: txt, port: port)
        } catch {
            return reject(&instance, name: name, reason: error.reason, malformed: true)
        }
        if let reason = filter.rejection(of: record) {
            return reject(&instance, name: name, reason: reason, malformed: false)
        }
        instance.lastRejection = nil
        instance.record = record
        var actions: [Action] = []
        if instance.host != host || !instance.querying {
            if instance.querying { actions.append(.stopAddressQueries(instance: name)) }
            instance.host = host
            instance.addresses = [:]
            instance.querying = true
            actions.append(.queryAddresses(instance: name, host: host))
        }
        return actions + publish(&instance, name: name)
    }

    private func reject(_ instance: inout Instance, name: String, reason: String, malformed: Bool) -> [Action] {
        var actions: [Action] = []
        if instance.lastRejection != reason {
            actions.append(.ignore(instance: name, reason: reason, malformed: malformed))
            instance.lastRejection = reason
        }
        instance.record = nil
        if instance.querying {
            actions.append(.stopAddressQueries(instance: name))
            instance.querying = false
            instance.addresses = [:]
            instance.host = nil
        }
        if let reported = instance.reported {
            actions.append(.report(.lost(reported)))
            instance.reported = nil
        }
        return actions
    }

    /// Reports the instance when it has a record and at least one address and differs from
    /// what was last reported; a first report waits until `settled`. Addresses that all go
    /// away leave the last report standing until the service itself is removed.
    private func publish(_ instance: inout Instance, name: String, settled: Bool = false) -> [Action] {
        guard let record = instance.record, let host = instance.host, !instance.addresses.isEmpty else { return [] }
        let peer = DiscoveredPeer(instance: name, record: record, host: host, addresses: instance.addresses.keys.sorted())
        guard let reported = instance.reported else {
            guard settled else {
                if instance.settling { return [] }
                instance.settling = true
                return [.scheduleSettle(instance: name)]
            }
            instance.reported = peer
            return [.report(.found(peer))]
        }
        instance.reported = peer
        return reported == peer ? [] : [.report(.changed(peer))]
    }

    private func scheduleRetry(_ instance: inout Instance, name: String) -> [Action] {
        guard instance.presence > 0, !instance.retryPending else { return [] }
        instance.retryPending = true
        return [.scheduleRetry(instance: name)]
    }
}
