import CDNSSD
import Logging

/// The advertiser's side of the loop thread: holds the one registration and replaces or
/// updates it.
final class AdvertiserDriver: DNSServiceDriver {
    struct RegisterReply {
        let error: DNSServiceErrorType
        let name: String?
    }

    private let context: LoopContext
    private let continuation: AsyncStream<AdvertiserEvent>.Continuation
    private let logger: Logger
    private(set) var record: DiscoveryRecord
    private var registration: LoopContext.RefID?

    init(context: LoopContext, record: DiscoveryRecord, logger: Logger, continuation: AsyncStream<AdvertiserEvent>.Continuation) {
        self.context = context
        self.record = record
        self.logger = logger
        self.continuation = continuation
    }

    func register() -> Result<Void, DiscoveryError> {
        let record = self.record
        let txt = record.encodedTXT()
        let handler = ReplyHandler<RegisterReply> { [unowned self] reply in registered(reply) }
        let opened = context.open(handler, onFailure: { [unowned self] code in registered(RegisterReply(error: code, name: nil)) }) { ref, replyContext in
            DNSServiceRegister(ref, 0, 0, record.instanceName, DiscoveryRecord.serviceType, nil, nil, record.port.bigEndian,
                               UInt16(txt.count), txt, { _, _, error, name, _, _, replyContext in
                ReplyHandler<RegisterReply>.deliver(replyContext, RegisterReply(error: error, name: name.map { String(cString: $0) }))
            }, replyContext)
        }
        switch opened {
        case .success(let id):
            registration = id
            logger.debug("registering", metadata: metadata)
            return .success(())
        case .failure(let code):
            return .failure(DNSSD.failure(code.value, doing: "register \(record.instanceName) on port \(record.port)"))
        }
    }

    /// Changes the TXT record in place; a new port or device needs a new registration
    /// (avahi's dns_sd cannot change a registered port), which peers see as a change.
    func update(_ new: DiscoveryRecord) -> Result<Void, DiscoveryError> {
        guard let registration, let ref = context.ref(registration),
              new.port == record.port, new.instanceName == record.instanceName
        else {
            withdraw()
            record = new
            return register()
        }
        guard new != record else { return .success(()) }
        let txt = new.encodedTXT()
        let code = DNSServiceUpdateRecord(ref, nil, 0, UInt16(txt.count), txt, 0)
        guard code == DNSSD.noError else {
            return .failure(DNSSD.failure(code, doing: "update the TXT record of \(record.instanceName)"))
        }
        record = new
        logger.debug("updated the TXT record", metadata: metadata)
        return .success(())
    }

    func loopWillStop() {
        withdraw()
        continuation.finish()
    }

    private func withdraw() {
        guard let registration else { return }
        context.deallocate(registration)
        self.registration = nil
        logger.debug("withdrew the registration", metadata: metadata)
    }

    private func registered(_ reply: RegisterReply) {
        if reply.error == DNSSD.noError {
            let name = reply.name ?? record.instanceName
            logger.info("announcing this device", metadata: metadata.merging(["discovery.registered": "\(name)"]) { $1 })
            continuation.yield(.registered(instance: name))
        } else {
            let error = DNSSD.failure(reply.error, doing: "keep \(record.instanceName) registered")
            logger.error("announcement failed", metadata: metadata.merging(["discovery.reason": "\(error.reason)"]) { $1 })
            withdraw()
            continuation.yield(.failed(error))
        }
    }

    private var metadata: Logger.Metadata {
        ["discovery.instance": "\(record.instanceName)", "discovery.port": "\(record.port)"]
    }
}
