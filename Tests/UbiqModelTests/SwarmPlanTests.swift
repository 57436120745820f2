import Testing
import UbiqModel

/// Which run goes to which peer: rarest first from each device's own place, windows that
/// follow each peer's pace, the end game, and demotion of peers that do not serve their word.
@Suite struct SwarmPlanTests {
    let origin = DeviceID("ORIGIN"), fast = DeviceID("FAST"), slow = DeviceID("SLOW")
    let mebibyte: UInt64 = 1 << 20
    let t0 = ContinuousClock.now

    /// `count` runs of one 1 MiB chunk each.
    func runs(_ count: Int) -> [[ChunkRef]] {
        (0..<count).map { [ChunkRef(offset: UInt64($0) * mebibyte, size: UInt32(mebibyte), hash: ChunkHash(bytes: [UInt8](repeating: UInt8(truncatingIfNeeded: $0), count: 32))!)] }
    }

    func end(of run: Int) -> UInt64 { UInt64(run + 1) * mebibyte }

    func held(_ runs: Range<Int>) -> RangeSet<UInt64> {
        RangeSet(UInt64(runs.lowerBound) * mebibyte..<UInt64(runs.upperBound) * mebibyte)
    }

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0.advanced(by: .milliseconds(milliseconds)) }

    @Test func eachDeviceTakesTheRunsInAnOrderOfItsOwn() {
        let sources = [SwarmSource(device: origin, holding: .all)]
        func order(seed: UInt64) -> [Int] {
            var plan = SwarmPlan(runs: runs(100), seed: seed)
            var order: [Int] = []
            while order.count < 100 {
                let request = plan.next(sources: sources, now: t0)!
                order.append(request.run)
                _ = plan.received(request, through: end(of: request.run), bytes: Int(mebibyte), now: t0)
            }
            #expect(plan.isComplete)
            return order
        }
        let first = order(seed: 7)
        #expect(Set(first) == Set(0..<100))
        #expect(order(seed: 7) == first)
        // Two devices' first ten runs: mostly different.
        #expect(Set(order(seed: 8).prefix(10)).intersection(first.prefix(10)).count < 5)
    }

    @Test func theOriginIsAskedForWhatNoOtherPeerHolds() {
        var plan = SwarmPlan(runs: runs(10), seed: 0)
        // FAST announced runs 0–4; SLOW holds nothing known.
        let sources = [SwarmSource(device: origin, holding: .all), SwarmSource(device: fast, holding: .some(held(0..<5))),
                       SwarmSource(device: slow, holding: .unknown)]
        var asked: [DeviceID: [Int]] = [:]
        while let request = plan.next(sources: sources, now: t0) { asked[request.peer, default: []].append(request.run) }
        #expect(asked[origin]?.count == 4 && asked[origin]!.allSatisfy { $0 >= 5 })
        #expect(asked[fast]?.count == 4 && asked[fast]!.allSatisfy { $0 < 5 })
        // A peer with nothing known is asked only for what no known holder is left for.
        #expect(asked[slow] == nil)
    }

    @Test func aRunAnotherReceiverClaimedIsLeftToItAtTheOrigin() {
        var plan = SwarmPlan(runs: runs(6), seed: 0)
        // FAST, another receiver, holds nothing yet and has asked for runs 0–3.
        let sources = [SwarmSource(device: origin, holding: .all), SwarmSource(device: fast, holding: .some(RangeSet()), claimed: held(0..<4))]
        var asked: [Int] = []
        while let request = plan.next(sources: sources, now: t0) { asked.append(request.run) }
        #expect(Array(asked.prefix(2)).sorted() == [4, 5], "asked the origin for \(asked)")
    }

    @Test func aFastPeerCarriesMoreRequestsThanASlowOne() {
        var plan = SwarmPlan(runs: runs(3_000), seed: 0)
        let sources = [SwarmSource(device: fast, holding: .all), SwarmSource(device: slow, holding: .all)]
        var inFlight: [SwarmPlan.Request: Int] = [:]
        // FAST answers each request 20 ms after it was sent, SLOW after 2 s.
        for now in stride(from: 0, through: 2_000, by: 10) {
            for (request, sent) in inFlight where now - sent >= (request.peer == fast ? 20 : 2_000) {
                inFlight[request] = nil
                _ = plan.received(request, through: end(of: request.run), bytes: Int(mebibyte), now: at(now))
            }
            while let request = plan.next(sources: sources, now: at(now)) { inFlight[request] = now }
        }
        let fastWindow = inFlight.keys.filter { $0.peer == fast }.count
        let slowWindow = inFlight.keys.filter { $0.peer == slow }.count
        #expect(slowWindow == 2)
        #expect(fastWindow == SwarmPlan.maxWindow)
        #expect(!plan.isComplete)
    }

    @Test func runsAStalledPeerHoldsAreAskedOfAnotherOnceNothingElseIsLeft() throws {
        var plan = SwarmPlan(runs: runs(2), seed: 0)
        let sources = [SwarmSource(device: slow, holding: .all), SwarmSource(device: fast, holding: .all)]
        let firstAsked = plan.next(sources: sources, now: t0)
        let first = try #require(firstAsked)
        let secondAsked = plan.next(sources: sources, now: t0)
        let second = try #require(secondAsked)
        #expect(first.peer == slow && second.peer == slow)
        #expect(plan.next(sources: sources, now: t0) == nil)
        // Not overdue yet: SLOW has no pace yet, so it may take a few seconds.
        #expect(plan.next(sources: sources, now: at(1_000)) == nil)
        let againAsked = plan.next(sources: sources, now: at(6_000))
        let again = try #require(againAsked)
        let andAgainAsked = plan.next(sources: sources, now: at(6_000))
        let andAgain = try #require(andAgainAsked)
        #expect(again == SwarmPlan.Request(run: first.run, peer: fast))
        #expect(andAgain == SwarmPlan.Request(run: second.run, peer: fast))
        #expect(plan.received(again, through: end(of: again.run), bytes: Int(mebibyte), now: at(6_050)) != nil)
        #expect(plan.received(andAgain, through: end(of: andAgain.run), bytes: Int(mebibyte), now: at(6_060)) != nil)
        #expect(plan.isComplete)
        // SLOW's late answer adds nothing.
        #expect(plan.received(first, through: end(of: first.run), bytes: Int(mebibyte), now: at(7_000)) == nil)
    }

    @Test func inTheEndGameARunASlowPeerHoldsIsAskedOfAFasterOne() {
        var plan = SwarmPlan(runs: runs(40), seed: 3)
        let sources = [SwarmSource(device: slow, holding: .all), SwarmSource(device: fast, holding: .all)]
        var inFlight: [SwarmPlan.Request: Int] = [:]
        var doubled: Set<Int> = []
        var now = 0
        // FAST answers 10 ms after a request, SLOW after 4 s: once FAST has brought the rest,
        // the runs SLOW holds come sooner from FAST, long before SLOW is overdue.
        while doubled.isEmpty && now < 4_000 {
            for (request, sent) in inFlight where now - sent >= (request.peer == fast ? 10 : 4_000) {
                inFlight[request] = nil
                _ = plan.received(request, through: end(of: request.run), bytes: Int(mebibyte), now: at(now))
            }
            while let request = plan.next(sources: sources, now: at(now)) { inFlight[request] = now }
            doubled = Set(inFlight.keys.filter { $0.peer == fast }.map(\.run)).intersection(inFlight.keys.filter { $0.peer == slow }.map(\.run))
            now += 10
        }
        #expect(!doubled.isEmpty && now < 1_000, "runs SLOW holds were asked of FAST only at \(now) ms")
    }

    /// SLOW answers its first two requests 400 ms after each, later ones 3 s after (its link
    /// filled up), FAST 50 ms after: SLOW's due times, guessed from its first answers, are
    /// too early for the 0.5 s rule, and 2 s overdue comes late. Once FAST has room and
    /// nothing else is left, the runs SLOW holds are asked of FAST at once.
    @Test func inTheEndGameARunASlowPeerHoldsIsAskedAtOnceOfOneThatIsNotSlow() {
        var plan = SwarmPlan(runs: runs(200), seed: 5)
        let sources = [SwarmSource(device: slow, holding: .all), SwarmSource(device: fast, holding: .all)]
        var inFlight: [SwarmPlan.Request: Int] = [:]
        var askedOfSlow = 0
        var now = 0
        while !plan.isComplete && now < 10_000 {
            for (request, sent) in inFlight.sorted(by: { $0.value < $1.value }) {
                guard now - sent >= (request.peer == fast ? 50 : sent < 400 ? 400 : 3_000) else { continue }
                inFlight[request] = nil
                _ = plan.received(request, through: end(of: request.run), bytes: Int(mebibyte), now: at(now))
            }
            while let request = plan.next(sources: sources, now: at(now)) {
                inFlight[request] = now
                if request.peer == slow { askedOfSlow += 1 }
            }
            now += 10
        }
        #expect(plan.isComplete)
        #expect(askedOfSlow > 4, "SLOW was asked only before its pace was known")
        // FAST alone brings the runs in about 650 ms; SLOW's late runs, asked at 400 ms, would
        // come at 3.4 s, and asked of FAST only once 2 s overdue, at about 3 s.
        #expect(now - 10 < 1_000, "complete at \(now - 10) ms")
    }

    /// SLOW announces the whole file at 1 s and never answers; ORIGIN answers 200 ms after
    /// each request. When ORIGIN has brought the rest, SLOW's runs are past the due time
    /// guessed for a peer of unknown pace but not yet 2 s overdue: silent for more than 2 s
    /// while asked, SLOW counts as slow, and its runs are asked of ORIGIN at once.
    @Test func aPeerSilentWhileAskedCountsAsSlow() {
        var plan = SwarmPlan(runs: runs(400), seed: 7)
        var inFlight: [SwarmPlan.Request: Int] = [:]
        var askedOfSlow = 0
        var now = 0
        while !plan.isComplete && now < 10_000 {
            for (request, sent) in inFlight where request.peer == origin && now - sent >= 200 {
                inFlight[request] = nil
                _ = plan.received(request, through: end(of: request.run), bytes: Int(mebibyte), now: at(now))
            }
            let sources = [SwarmSource(device: origin, holding: .all),
                           SwarmSource(device: slow, holding: now >= 1_000 ? .some(held(0..<400)) : .some(RangeSet()))]
            while let request = plan.next(sources: sources, now: at(now)) {
                inFlight[request] = now
                if request.peer == slow { askedOfSlow += 1 }
            }
            now += 10
        }
        #expect(plan.isComplete)
        #expect(askedOfSlow > 0)
        // ORIGIN alone is done at about 5.2 s; once SLOW is 2 s overdue, at about 6.2 s.
        #expect(now - 10 < 5_800, "complete at \(now - 10) ms")
    }

    @Test func aPeerThatDoesNotServeWhatItAnnouncedIsDemoted() throws {
        var plan = SwarmPlan(runs: runs(4), seed: 0)
        let sources = [SwarmSource(device: fast, holding: .some(held(0..<4))), SwarmSource(device: origin, holding: .all)]
        let toFastAsked = plan.next(sources: sources, now: t0)
        let toFast = try #require(toFastAsked)
        #expect(toFast.peer == fast)
        plan.failed(toFast, .notServed, now: at(10))
        #expect(plan.demoted == [fast])
        var asked: [SwarmPlan.Request] = []
        while let request = plan.next(sources: sources, now: at(10)) { asked.append(request) }
        #expect(asked.allSatisfy { $0.peer == origin })
        #expect(Set(asked.map(\.run)) == [0, 1, 2, 3])
    }

    @Test func aHolderThatDoesNotServeIsNotDemotedButNotAskedForThatRunAgain() throws {
        var plan = SwarmPlan(runs: runs(1), seed: 0)
        let sources = [SwarmSource(device: origin, holding: .all)]
        let requestAsked = plan.next(sources: sources, now: t0)
        let request = try #require(requestAsked)
        plan.failed(request, .notServed, now: at(10))
        #expect(plan.demoted.isEmpty)
        #expect(plan.next(sources: sources, now: at(10)) == nil)
        #expect(plan.unobtainable(sources: sources) != nil)
    }

    @Test func wrongBytesDemoteAndAPartAnswerLeavesTheRestWaiting() throws {
        let chunks = (0..<4).map { ChunkRef(offset: UInt64($0) * 100, size: 100, hash: ChunkHash(bytes: [UInt8](repeating: UInt8($0), count: 32))!) }
        var plan = SwarmPlan(runs: [chunks], seed: 0)
        let sources = [SwarmSource(device: fast, holding: .all), SwarmSource(device: origin, holding: .all)]
        let firstAsked = plan.next(sources: sources, now: t0)
        let first = try #require(firstAsked)
        #expect(plan.received(first, through: 200, bytes: 200, now: at(1)) == 0..<200)
        #expect(plan.runs[0].map(\.offset) == [200, 300])
        let secondAsked = plan.next(sources: sources, now: at(1))
        let second = try #require(secondAsked)
        plan.failed(second, .wrongBytes, now: at(2))
        #expect(plan.demoted == [second.peer])
        let thirdAsked = plan.next(sources: sources, now: at(2))
        let third = try #require(thirdAsked)
        #expect(third.peer != second.peer)
        #expect(plan.received(third, through: 400, bytes: 200, now: at(3)) == 200..<400)
        #expect(plan.isComplete)
    }

    @Test func rangeSetsCoverOnlyWhatOneOfTheirRangesHolds() {
        var set = RangeSet<UInt64>(0..<10)
        set.insert(contentsOf: 20..<30)
        #expect(set.covers(0..<10) && set.covers(22..<25) && set.covers(20..<30))
        #expect(!set.covers(5..<25) && !set.covers(10..<20) && !set.covers(29..<31) && !set.covers(40..<41))
    }
}
