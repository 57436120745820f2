import CDNSSD
import Logging

/// The browser's side of the loop thread: turns dns_sd replies into `PeerTracker` inputs and
/// performs the tracker's actions (resolves, address queries, retries, events).
final class BrowserDriver: DNSServiceDriver {
    struct BrowseReply {
        let flags: DNSServiceFlags
        let error: DNSServiceErrorType
        let name: String?
        let domain: String?
    }

    struct ResolveReply {
        let error: DNSServiceErrorType
        let host: String?
        let port: UInt16
        let txt: [UInt8]
    }

    struct RecordReply {
        let flags: DNSServiceFlags
        let interfaceIndex: UInt32
        let error: DNSServiceErrorType
        let rrtype: UInt16
        let rdata: [UInt8]
    }

    /// How long a failed resolve or address query waits before it is tried again.
    static let retryDelay: Duration = .seconds(5)
    /// How long a new peer's first address waits for the others (A and AAAA answers arrive
    /// through separate queries) before `found` is reported.
    static let settleDelay: Duration = .milliseconds(200)

    private let context: LoopContext
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let logger: Logger
    private var tracker: PeerTracker
    private var resolves: [String: LoopContext.RefID] = [:]
    private var queries: [String: [LoopContext.RefID]] = [:]
    private var failure: DiscoveryError?

    init(context: LoopContext, filter: DiscoveryFilter, logger: Logger, continuation: AsyncStream<DiscoveryEvent>.Continuation) {
        self.context = context
        self.tracker = PeerTracker(filter: filter)
        self.logger = logger
        self.continuation = continuation
    }

    func start() -> Result<Void, DiscoveryError> {
        let handler = ReplyHandler<BrowseReply> { [unowned self] reply in browsed(reply) }
        let opened = context.open(handler, onFailure: { [unowned self] code in fail(code) }) { ref, replyContext in
            DNSServiceBrowse(ref, 0, 0, DiscoveryRecord.serviceType, "local.", { _, flags, _, error, name, _, domain, replyContext in
                ReplyHandler<BrowseReply>.deliver(replyContext, BrowseReply(
                    flags: flags, error: error, name: name.map { String(cString: $0) }, domain: domain.map { String(cString: $0) }))
            }, replyContext)
        }
        switch opened {
        case .success:
            logger.debug("browsing for peers", metadata: ["discovery.type": "\(DiscoveryRecord.serviceType)"])
            return .success(())
        case .failure(let code):
            return .failure(DNSSD.failure(code.value, doing: "browse for \(DiscoveryRecord.serviceType)"))
        }
    }

    func loopWillStop() {
        for event in tracker.drain() { report(event) }
        if let failure { continuation.yield(.stopped(failure)) }
        continuation.finish()
    }

    private func browsed(_ reply: BrowseReply) {
        guard reply.error == DNSSD.noError else { return fail(reply.error) }
        guard let name = reply.name else { return }
        if reply.flags & cdnssd_flag_add() != 0 {
            feed(.added(instance: name, domain: reply.domain ?? "local."))
        } else {
            feed(.removed(instance: name))
        }
    }

    /// avahi went away or the browse broke: stop, reporting every peer lost.
    private func fail(_ code: DNSServiceErrorType) {
        guard failure == nil else { return }
        let error = DNSSD.failure(code, doing: "keep browsing")
        logger.error("discovery stopped", metadata: ["discovery.reason": "\(error.reason)"])
        failure = error
        context.requestStop()
    }

    private func feed(_ input: PeerTracker.Input) {
        var pending = [input]
        while !pending.isEmpty {
            for action in tracker.handle(pending.removeFirst()) {
                if let followUp = perform(action) { pending.append(followUp) }
            }
        }
    }

    private func perform(_ action: PeerTracker.Action) -> PeerTracker.Input? {
        switch action {
        case .startResolve(let instance, let domain):
            return startResolve(instance, domain: domain)
        case .stopResolve(let instance):
            if let id = resolves.removeValue(forKey: instance) { context.deallocate(id) }
        case .queryAddresses(let instance, let host):
            return queryAddresses(instance, host: host)
        case .stopAddressQueries(let instance):
            for id in queries.removeValue(forKey: instance) ?? [] { context.deallocate(id) }
        case .scheduleRetry(let instance):
            context.schedule(after: Self.retryDelay) { [unowned self] in feed(.retryDue(instance: instance)) }
        case .scheduleSettle(let instance):
            context.schedule(after: Self.settleDelay) { [unowned self] in feed(.settleDue(instance: instance)) }
        case .report(let event):
            report(event)
        case .ignore(let instance, let reason, let malformed):
            let metadata: Logger.Metadata = ["discovery.instance": "\(instance)", "discovery.reason": "\(reason)"]
            if malformed {
                logger.warning("ignoring a malformed ubiq service", metadata: metadata)
            } else {
                logger.debug("ignoring a ubiq service", metadata: metadata)
            }
        }
        return nil
    }

    private func startResolve(_ instance: String, domain: String) -> PeerTracker.Input? {
        let handler = ReplyHandler<ResolveReply> { [unowned self] reply in
            if reply.error != DNSSD.noError || reply.host == nil {
                logger.debug("resolve failed", metadata: ["discovery.instance": "\(instance)", "discovery.error": "\(reply.error)"])
                feed(.resolveFailed(instance: instance))
            } else {
                feed(.resolved(instance: instance, host: reply.host!, port: reply.port, txt: reply.txt))
            }
        }
        let opened = context.open(handler, onFailure: { [unowned self] _ in feed(.resolveFailed(instance: instance)) }) { ref, replyContext in
            DNSServiceResolve(ref, 0, 0, instance, DiscoveryRecord.serviceType, domain, { _, _, _, error, _, host, port, txtLength, txt, replyContext in
                let bytes = txt.map { Array(UnsafeBufferPointer(start: $0, count: Int(txtLength))) } ?? []
                ReplyHandler<ResolveReply>.deliver(replyContext, ResolveReply(
                    error: error, host: host.map { String(cString: $0) }, port: UInt16(bigEndian: port), txt: bytes))
            }, replyContext)
        }
        switch opened {
        case .success(let id):
            resolves[instance] = id
            return nil
        case .failure(let code):
            logger.debug("could not start a resolve", metadata: ["discovery.instance": "\(instance)", "discovery.error": "\(code.value)"])
            return .resolveFailed(instance: instance)
        }
    }

    private func queryAddresses(_ instance: String, host: String) -> PeerTracker.Input? {
        for id in queries.removeValue(forKey: instance) ?? [] { context.deallocate(id) }
        var opened: [LoopContext.RefID] = []
        for rrtype in [cdnssd_type_a(), cdnssd_type_aaaa()] {
            let handler = ReplyHandler<RecordReply> { [unowned self] reply in addressReply(reply, instance: instance) }
            let result = context.open(handler, onFailure: { [unowned self] _ in feed(.addressQueryFailed(instance: instance)) }) { ref, replyContext in
                DNSServiceQueryRecord(ref, 0, 0, host, rrtype, cdnssd_class_in(), { _, flags, interfaceIndex, error, _, rrtype, _, length, rdata, _, replyContext in
                    let bytes = rdata.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
                    ReplyHandler<RecordReply>.deliver(replyContext, RecordReply(
                        flags: flags, interfaceIndex: interfaceIndex, error: error, rrtype: rrtype, rdata: bytes))
                }, replyContext)
            }
            if case .success(let id) = result { opened.append(id) }
        }
        guard !opened.isEmpty else { return .addressQueryFailed(instance: instance) }
        queries[instance] = opened
        return nil
    }

    private func addressReply(_ reply: RecordReply, instance: String) {
        guard reply.error == DNSSD.noError else { return feed(.addressQueryFailed(instance: instance)) }
        guard let address = AddressText.format(rrtype: reply.rrtype, rdata: reply.rdata, interfaceIndex: reply.interfaceIndex) else {
            logger.debug("ignoring an address record of the wrong size", metadata: ["discovery.instance": "\(instance)"])
            return
        }
        if reply.flags & cdnssd_flag_add() != 0 {
            feed(.addressAdded(instance: instance, address: address))
        } else {
            feed(.addressRemoved(instance: instance, address: address))
        }
    }

    private func report(_ event: DiscoveryEvent) {
        switch event {
        case .found(let peer), .changed(let peer):
            logger.info(event.isFound ? "peer found" : "peer changed", metadata: [
                "discovery.instance": "\(peer.instance)", "peer.device": "\(peer.deviceID)",
                "peer.port": "\(peer.port)", "peer.addresses": "\(peer.addresses.joined(separator: " "))",
            ])
        case .lost(let peer):
            logger.info("peer lost", metadata: ["discovery.instance": "\(peer.instance)", "peer.device": "\(peer.deviceID)"])
        case .stopped:
            break
        }
        continuation.yield(event)
    }
}

extension DiscoveryEvent {
    fileprivate var isFound: Bool {
        if case .found = self { return true }
        return false
    }
}
