import Testing
import UbiqModel
import UbiqSync

@Suite struct FileLeasesTests {
    let notes = try! ContainerID("TEAMID.com.example.notes")

    func claim(_ path: String?, _ access: FileLeases.Access) -> FileLeases.Claim {
        FileLeases.Claim(container: notes, path: path.map { try! RelativePath($0) }, access: access)
    }

    @Test func readersShareAndAWriterExcludes() async {
        let leases = FileLeases()
        let r1 = await leases.tryAcquire([claim("Documents/a", .read)], for: .client(connection: 1))
        let r2 = await leases.tryAcquire([claim("Documents/a", .read)], for: .client(connection: 2))
        #expect(r1 != nil && r2 != nil)
        #expect(await leases.tryAcquire([claim("Documents/a", .write)], for: .agent("apply")) == nil)
        #expect(await leases.tryAcquire([claim("Documents/b", .write)], for: .agent("apply")) != nil)
        // A folder's lease covers what is inside, and the whole container covers everything.
        #expect(await leases.tryAcquire([claim("Documents", .write)], for: .agent("apply")) == nil)
        #expect(await leases.tryAcquire([claim(nil, .write)], for: .agent("apply")) == nil)
    }

    @Test func aWaitingWriterIsNotPassedByLaterReaders() async throws {
        let leases = FileLeases()
        let reader = try #require(await leases.acquire([claim("d", .read)], for: .client(connection: 1), timeout: .seconds(5)))
        async let writer = leases.acquire([claim("d", .write)], for: .client(connection: 2), timeout: .seconds(30))
        try await waitForWaiter(leases)
        #expect(await leases.tryAcquire([claim("d", .read)], for: .client(connection: 3)) == nil)
        await leases.release(reader.id)
        #expect(await writer != nil)
    }

    @Test func aTimedOutWaitHoldsNothingAndAClosedClientFreesAll() async throws {
        let leases = FileLeases()
        _ = await leases.tryAcquire([claim("d", .write), claim("e", .read)], for: .client(connection: 1))
        #expect(await leases.acquire([claim("d", .read)], for: .client(connection: 2), timeout: .milliseconds(20)) == nil)
        #expect(await leases.heldLeases.count == 1)
        await leases.releaseAll(of: .client(connection: 1))
        #expect(await leases.heldLeases.isEmpty)
        #expect(await leases.tryAcquire([claim("d", .write)], for: .client(connection: 2)) != nil)
    }

    private func waitForWaiter(_ leases: FileLeases) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while await leases.waitingCount == 0 {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
