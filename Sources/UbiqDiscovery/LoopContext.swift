import CDNSSD
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Receives one DNSServiceRef's replies. Its address is the C callback's context pointer:
/// the `LoopContext` keeps it alive until the ref is deallocated, and `isLive` stops
/// delivery once deallocation has begun.
final class ReplyHandler<Reply> {
    var isLive = true
    private let handle: (Reply) -> Void

    init(_ handle: @escaping (Reply) -> Void) { self.handle = handle }

    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Called from the C callbacks, on the loop thread, inside `DNSServiceProcessResult`.
    static func deliver(_ context: UnsafeMutableRawPointer?, _ reply: Reply) {
        guard let context else { return }
        let handler = Unmanaged<ReplyHandler<Reply>>.fromOpaque(context).takeUnretainedValue()
        if handler.isLive { handler.handle(reply) }
    }
}

private protocol LiveFlag: AnyObject { var isLive: Bool { get set } }
extension ReplyHandler: LiveFlag {}

/// The DNSServiceRefs and timers of one `DNSServiceLoop`. Created on the loop thread and
/// only ever used there, by the driver and the loop.
final class LoopContext {
    struct RefID: Hashable { fileprivate let raw: Int }

    private struct Entry {
        let ref: OpaquePointer
        let fd: Int32
        let handler: any LiveFlag
        let onFailure: (DNSServiceErrorType) -> Void
    }

    private struct Timer {
        let deadline: ContinuousClock.Instant
        let action: () -> Void
    }

    private var entries: [RefID: Entry] = [:]
    private var nextID = 0
    private var timers: [Timer] = []
    /// Set by the driver to end the loop after the current round (e.g. avahi went away).
    private(set) var wantsStop = false

    func requestStop() { wantsStop = true }

    /// Calls `create` with the handler's context pointer and adopts the ref it makes.
    /// `onFailure` runs when processing the ref fails later (the daemon went away); the ref is
    /// deallocated right after it.
    func open<Reply>(
        _ handler: ReplyHandler<Reply>,
        onFailure: @escaping (DNSServiceErrorType) -> Void,
        _ create: (UnsafeMutablePointer<DNSServiceRef?>, UnsafeMutableRawPointer) -> DNSServiceErrorType
    ) -> Result<RefID, DNSServiceCode> {
        DNSSD.prepare()
        var ref: DNSServiceRef?
        let code = create(&ref, handler.context)
        guard code == DNSSD.noError, let ref else { return .failure(DNSServiceCode(value: code)) }
        let fd = DNSServiceRefSockFD(ref)
        guard fd >= 0 else {
            DNSServiceRefDeallocate(ref)
            return .failure(DNSServiceCode(value: DNSServiceErrorType(kDNSServiceErr_BadReference)))
        }
        let id = RefID(raw: nextID)
        nextID += 1
        entries[id] = Entry(ref: ref, fd: fd, handler: handler, onFailure: onFailure)
        return .success(id)
    }

    /// The ref itself, for calls such as `DNSServiceUpdateRecord`.
    func ref(_ id: RefID) -> DNSServiceRef? { entries[id]?.ref }

    /// Deallocates the ref; no reply is delivered for it afterwards. Safe to call twice and
    /// from inside the ref's own callback.
    func deallocate(_ id: RefID) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        entry.handler.isLive = false
        DNSServiceRefDeallocate(entry.ref)
    }

    func deallocateAll() {
        for id in entries.keys.sorted(by: { $0.raw < $1.raw }) { deallocate(id) }
        timers = []
    }

    var openRefCount: Int { entries.count }

    func schedule(after delay: Duration, _ action: @escaping () -> Void) {
        timers.append(Timer(deadline: .now + delay, action: action))
    }

    /// Runs the timers that are due (actions may schedule new ones).
    func fireDueTimers() {
        let now = ContinuousClock.now
        let due = timers.filter { $0.deadline <= now }
        guard !due.isEmpty else { return }
        timers.removeAll { $0.deadline <= now }
        for timer in due { timer.action() }
    }

    /// Milliseconds until the next timer, -1 for none.
    func pollTimeout() -> Int32 {
        guard let next = timers.map(\.deadline).min() else { return -1 }
        let remaining = ContinuousClock.now.duration(to: next)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// Appends one `pollfd` per open ref and returns the refs in the same order.
    func pollSet(into fds: inout [pollfd]) -> [RefID] {
        let ids = entries.keys.sorted { $0.raw < $1.raw }
        for id in ids { fds.append(pollfd(fd: entries[id]!.fd, events: Int16(POLLIN), revents: 0)) }
        return ids
    }

    /// Lets dns_sd read the ref's socket and run its callbacks. A ref deallocated by an
    /// earlier callback in the same poll round is skipped.
    func process(_ id: RefID) {
        guard let entry = entries[id] else { return }
        let code = DNSServiceProcessResult(entry.ref)
        guard code != DNSSD.noError, entries[id] != nil else { return }
        entry.onFailure(code)
        deallocate(id)
    }
}

/// A dns_sd error code as a Swift error, before it is turned into a `DiscoveryError`.
struct DNSServiceCode: Error {
    let value: DNSServiceErrorType
}
