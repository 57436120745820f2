/// Decides, for one file being fetched, which run of chunks to ask which peer for next, so
/// that the pieces come from every peer holding them and not all from the origin.
///
/// - **Rarest first.** Of the runs a peer holds, the one the fewest peers hold goes first;
///   a piece another receiver has asked for (claimed) counts as held, so two receivers
///   seldom ask the origin for one piece at once; among equals, each device takes them in an
///   order of its own (shuffled from `seed`), so that receivers hold different pieces from
///   the start and trade them (BitTorrent's piece selection, B. Cohen, "Incentives Build
///   Robustness in BitTorrent", 2003).
/// - **Fast peers carry more.** Each peer has a window of requests in flight that follows
///   the bytes a second it has delivered while asked; a stalled peer fills its window and
///   gets no more. A peer at a quarter of the fastest's pace or less, counting the time its
///   requests in flight have waited, is asked last, for the runs most peers hold, and its
///   pieces do not count towards a run's rarity: rare pieces parked on a slow link would
///   spread slowly.
/// - **Nothing waits on one peer.** Once no run is left to ask for, a run is asked of a
///   second peer too where that peer's pace would bring it sooner than the first's, where
///   the first is slow and the second is not, or where the first has let it wait well beyond
///   what its pace explains (stalled); the first answer counts (BitTorrent's end game).
/// - **Bad peers lose their say.** A peer that does not serve what it announced, or sends
///   bytes that fail their hash, is demoted: its announcements count no more for this file,
///   and it is not asked for that run again.
///
/// Pure: the caller sends the requests, checks the bytes and reports each outcome.
public struct SwarmPlan: Sendable {
    /// One request: a run (by its number) asked of a peer.
    public struct Request: Hashable, Sendable {
        public let run: Int
        public let peer: DeviceID

        public init(run: Int, peer: DeviceID) {
            self.run = run
            self.peer = peer
        }
    }

    /// Why a request brought nothing.
    public enum Failure: Sendable, Equatable {
        /// The peer answered that it has not got the chunks.
        case notServed
        /// The first chunk it sent did not match its hash.
        case wrongBytes
        /// No answer: the connection ended, or the request timed out.
        case noAnswer
    }

    private enum RunState: Equatable {
        case waiting
        case asked([DeviceID: Asked])
        case done
    }

    /// When a run asked of a peer should come at the peer's pace, and whether the peer had
    /// announced holding it.
    private struct Asked: Equatable {
        var due: ContinuousClock.Instant
        var announced: Bool
    }

    /// The chunks each run still lacks, in file order.
    public private(set) var runs: [[ChunkRef]]
    private var states: [RunState]
    /// Peers that failed each run, not asked for it again.
    private var tried: [Set<DeviceID>]
    /// The runs not done, in the order runs of equal rarity are taken in.
    private var order: [Int]
    private var peers: [DeviceID: PeerPace] = [:]
    /// Peers whose announcements no longer count.
    public private(set) var demoted: Set<DeviceID> = []
    private var remaining: Int

    /// Requests in flight to one peer, at most and at first.
    public static let maxWindow = 16
    static let firstWindow = 4
    /// How long, in seconds, a peer's window of requests should take it at its measured pace.
    static let windowSeconds = 0.4
    /// A request is overdue, and its run asked of another peer too, once it has waited this
    /// long beyond what the peer's pace explains.
    static let grace: Duration = .seconds(2)
    /// In the end game, a run is asked of a faster peer too where that peer would bring it
    /// at least this much sooner.
    static let sooner: Duration = .milliseconds(500)
    /// A peer delivering less than the fastest's pace divided by this is slow.
    static let slowness = 4.0

    /// `runs`: the chunks to fetch, in runs of adjacent chunks; `seed`: this device's own
    /// order of them (a plan replays exactly from its seed).
    public init(runs: [[ChunkRef]], seed: UInt64) {
        self.runs = runs
        states = Array(repeating: .waiting, count: runs.count)
        tried = Array(repeating: [], count: runs.count)
        var generator = SplitMix64(seed: seed)
        order = Array(runs.indices).shuffled(using: &generator)
        remaining = runs.count
    }

    public var isComplete: Bool { remaining == 0 }

    /// The next request to send, or nil when no peer has room for one it can answer.
    public mutating func next(sources: [SwarmSource], now: ContinuousClock.Instant) -> Request? {
        let sources = sources.map { source in
            var source = source
            if demoted.contains(source.device), case .some = source.holding { source.holding = .unknown }
            return source
        }
        let known = sources.filter { $0.holding != .unknown }
        // A slow peer's pieces spread slowly: they do not make a run less rare, and it is
        // asked for the runs most peers hold, which cost nothing when they come late.
        let fastest = known.compactMap { peers[$0.device]?.rate(at: now) }.max()
        let slow = Set(known.filter { source in
            guard let fastest, let rate = peers[source.device]?.rate(at: now) else { return false }
            return rate < fastest / Self.slowness
        }.map(\.device))
        let counted = known.filter { !slow.contains($0.device) }
        let ranked = counted.filter { !$0.stalled } + known.filter { slow.contains($0.device) && !$0.stalled } + known.filter(\.stalled)
        for source in ranked where hasRoom(source.device) {
            if let run = pick(heldBy: source, among: counted, rarest: !slow.contains(source.device)) { return ask(run, of: source, now: now) }
        }
        // Runs no known holder is left for: peers that may hold the chunks elsewhere.
        for source in sources where source.holding == .unknown && hasRoom(source.device) {
            let orphan = order.first { run in
                states[run] == .waiting && !tried[run].contains(source.device)
                    && !known.contains { !tried[run].contains($0.device) && $0.holds(range(of: run)) }
            }
            if let orphan { return ask(orphan, of: source, now: now) }
        }
        return endGame(known, slow: slow, now: now)
    }

    /// The peer answered with the run's bytes up to `end` (at least its first chunk), checked
    /// and written. Returns the bytes this answer added that no earlier one brought: a run
    /// asked of two peers is taken from the first answer.
    public mutating func received(_ request: Request, through end: UInt64, bytes: Int, now: ContinuousClock.Instant) -> Range<UInt64>? {
        guard case .asked(var askedOf) = states[request.run], askedOf[request.peer] != nil else { return nil }
        peers[request.peer, default: PeerPace()].finished(bytes: bytes, now: now)
        askedOf[request.peer] = nil
        let start = runs[request.run].first?.offset ?? end
        let taken = runs[request.run].prefix { $0.offset + UInt64($0.size) <= end }.count
        runs[request.run].removeFirst(taken)
        if runs[request.run].isEmpty {
            states[request.run] = .done
            remaining -= 1
            order.removeAll { $0 == request.run }
            // The others' answers are no longer needed; they count as done.
            for peer in askedOf.keys { peers[peer]?.finished(bytes: 0, now: now) }
        } else {
            states[request.run] = askedOf.isEmpty ? .waiting : .asked(askedOf)
        }
        return taken > 0 ? start..<end : nil
    }

    /// The request brought nothing. A peer that did not serve a run it announced, or sent
    /// wrong bytes, is demoted.
    public mutating func failed(_ request: Request, _ failure: Failure, now: ContinuousClock.Instant) {
        guard case .asked(var askedOf) = states[request.run], let asked = askedOf[request.peer] else { return }
        peers[request.peer, default: PeerPace()].finished(bytes: 0, now: now)
        tried[request.run].insert(request.peer)
        if failure == .wrongBytes || (failure == .notServed && asked.announced) { demoted.insert(request.peer) }
        askedOf[request.peer] = nil
        states[request.run] = askedOf.isEmpty ? .waiting : .asked(askedOf)
    }

    /// A run that is waiting and that every source has failed: the fetch cannot finish.
    public func unobtainable(sources: [SwarmSource]) -> [ChunkRef]? {
        for run in runs.indices where states[run] == .waiting && sources.allSatisfy({ tried[run].contains($0.device) }) {
            return runs[run]
        }
        return nil
    }

    // MARK: choosing

    private func range(of run: Int) -> Range<UInt64> { runs[run].span ?? 0..<0 }

    private func hasRoom(_ peer: DeviceID) -> Bool {
        let pace = peers[peer] ?? PeerPace()
        return pace.inFlight < pace.window
    }

    /// Of the waiting runs `source` holds and has not failed, the one the fewest of `known`
    /// hold or have claimed (`rarest`), or the most.
    private func pick(heldBy source: SwarmSource, among known: [SwarmSource], rarest: Bool) -> Int? {
        // No run has fewer holders than the peers holding it all, and this one; none more
        // than all of `known`.
        let bound = rarest ? known.count { $0.holding == .all } + (source.holding == .all ? 0 : 1) : known.count
        var best: (run: Int, holders: Int)?
        for run in order where states[run] == .waiting && !tried[run].contains(source.device) {
            let wanted = range(of: run)
            guard source.holds(wanted) else { continue }
            let holders = known.reduce(0) { $0 + ($1.holdsOrClaims(wanted) ? 1 : 0) }
            if best.map({ rarest ? holders < $0.holders : holders > $0.holders }) ?? true { best = (run, holders) }
            if rarest ? holders <= bound : holders >= bound { break }
        }
        return best?.run
    }

    /// A run asked of one peer that another peer with room would bring sooner, or that the
    /// first has let wait well past its due time, or that waits on a slow peer while a peer
    /// that is not slow has room: a slow peer's due time is a guess from a few answers, and
    /// the last runs of a file are where a wrong guess costs whole seconds.
    private mutating func endGame(_ known: [SwarmSource], slow: Set<DeviceID>, now: ContinuousClock.Instant) -> Request? {
        let helpers = (known.filter { !$0.stalled } + known.filter(\.stalled)).filter { hasRoom($0.device) }
        guard !helpers.isEmpty else { return nil }
        for run in order {
            guard case .asked(let askedOf) = states[run], askedOf.count == 1, let (first, asked) = askedOf.first else { continue }
            let wanted = range(of: run)
            let overdue = now > asked.due + Self.grace
            for helper in helpers where helper.device != first && !tried[run].contains(helper.device) && helper.holds(wanted) {
                let due = now + (peers[helper.device] ?? PeerPace()).expectedWait
                let fasterThanSlow = slow.contains(first) && !slow.contains(helper.device)
                if overdue || fasterThanSlow || due + Self.sooner < asked.due { return ask(run, of: helper, now: now) }
            }
        }
        return nil
    }

    private mutating func ask(_ run: Int, of source: SwarmSource, now: ContinuousClock.Instant) -> Request {
        var askedOf: [DeviceID: Asked] = [:]
        if case .asked(let already) = states[run] { askedOf = already }
        var announced = false
        if case .some = source.holding { announced = source.holds(range(of: run)) }
        askedOf[source.device] = Asked(due: now + (peers[source.device] ?? PeerPace()).expectedWait, announced: announced)
        states[run] = .asked(askedOf)
        peers[source.device, default: PeerPace()].started(now: now)
        return Request(run: run, peer: source.device)
    }
}

/// How fast one peer delivers: bytes over the time it had requests in flight.
struct PeerPace: Sendable {
    var inFlight = 0
    private var delivered = 0
    private var busy: Duration = .zero
    private var busySince: ContinuousClock.Instant?

    /// Bytes a second, once something came.
    var rate: Double? {
        let seconds = Self.seconds(busy)
        return delivered > 0 && seconds > 0.001 ? Double(delivered) / seconds : nil
    }

    /// Bytes a second counting the time the requests now in flight have waited: so a peer
    /// that has delivered nothing for ``silentForSlowness`` while asked counts as delivering
    /// nothing, and one whose link filled up falls in pace before its late answers come.
    func rate(at now: ContinuousClock.Instant) -> Double? {
        let waited = busySince.map { busy + (now - $0) } ?? busy
        if delivered == 0 { return waited >= Self.silentForSlowness ? 0 : nil }
        let seconds = Self.seconds(waited)
        return seconds > 0.001 ? Double(delivered) / seconds : nil
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static let silentForSlowness: Duration = .seconds(2)

    var window: Int {
        guard let rate else { return SwarmPlan.firstWindow }
        return max(2, min(SwarmPlan.maxWindow, Int(rate * SwarmPlan.windowSeconds / Double(1 << 20)) + 2))
    }

    /// How long a request sent now waits behind those in flight, at the measured pace.
    var expectedWait: Duration {
        guard let rate else { return .seconds(3) }
        return .seconds(Double(inFlight + 1) * Double(1 << 20) / rate)
    }

    mutating func started(now: ContinuousClock.Instant) {
        account(now: now)
        inFlight += 1
        busySince = now
    }

    mutating func finished(bytes: Int, now: ContinuousClock.Instant) {
        account(now: now)
        delivered += bytes
        inFlight = max(0, inFlight - 1)
        busySince = inFlight > 0 ? now : nil
    }

    /// Adds the time since the last event to the busy time, if requests were in flight.
    private mutating func account(now: ContinuousClock.Instant) {
        if let since = busySince { busy += now - since }
    }
}
