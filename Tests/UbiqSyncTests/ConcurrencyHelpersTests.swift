import Testing
@testable import UbiqSync

/// The helpers sessions build on: a deadline that cancels what it bounds, an answer that
/// arrives once, and a byte budget that holds no more than its limit, first come first served.
@Suite(.timeLimit(.minutes(1))) struct ConcurrencyHelpersTests {
    @Test func aDeadlineReturnsTheResultInTimeAndCancelsTheOperationAfter() async throws {
        #expect(try await withDeadline(.seconds(30)) { 42 } == 42)
        let answer = OneShot<Int>()
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(.milliseconds(20)) { try await answer.value }
        }
        // The operation was cancelled, not left waiting: the answer is settled as cancelled.
        answer.resolve(.success(1))
        await #expect(throws: CancellationError.self) { try await answer.value }
    }

    @Test func anAnswerResolvedBeforeOrAfterTheWaitArrivesOnce() async throws {
        let early = OneShot<String>()
        early.resolve(.success("early"))
        early.resolve(.success("ignored"))
        #expect(try await early.value == "early")
        let late = OneShot<String>()
        async let value = late.value
        late.resolve(.success("late"))
        #expect(try await value == "late")
    }

    @Test func aBudgetHoldsAtMostItsLimitInArrivalOrder() async {
        let budget = ByteBudget(limit: 10)
        #expect(await budget.acquire(6) == 6)
        let order = Order()
        let seven = Task { _ = await budget.acquire(7); await order.note(7) }
        // The small one arrives later and fits, but waits behind the first waiter.
        while await budget.waiting < 1 { await Task.yield() }
        let two = Task { _ = await budget.acquire(2); await order.note(2) }
        while await budget.waiting < 2, await order.seen.isEmpty { await Task.yield() }
        #expect(await budget.inUse == 6)
        await budget.release(6)
        await seven.value
        await two.value
        #expect(await order.seen == [7, 2] && budget.limit == 10)
        #expect(await budget.inUse == 9)
        await budget.release(9)
        #expect(await budget.acquire(50) == 10, "a request over the limit takes the whole budget once it is free")
    }

    actor Order {
        var seen: [Int] = []
        func note(_ value: Int) { seen.append(value) }
    }
}
