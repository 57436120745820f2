import Testing
import UbiqModel
@testable import UbiqSync

/// A change that keeps failing is tried less and less often, down to once a minute; a new
/// version of it, or a peer connecting, has it tried at once.
@Suite struct RetryBackoffTests {
    let t0 = ContinuousClock.now
    let me = DeviceID("ME")

    func item(_ path: String, version counter: UInt64 = 1) -> Item {
        Item(path: try! RelativePath(path), kind: .file, deleted: false, size: 0, mtime: 1, chunks: [],
             version: VersionVector([me: counter]), modifiedBy: me)
    }

    @Test func waitsDoubleFromASecondToAMinute() {
        #expect((1...8).map { RetryBackoff.wait(afterFailures: $0) } == [1, 2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
    }

    @Test func aFailedChangeWaitsItsTurn() {
        var retries = RetryBackoff()
        let file = item("Documents/huge.bin")
        #expect(!retries.isWaiting(file, at: t0))
        let first = retries.failed(file, at: t0).wait
        let second = retries.failed(file, at: t0 + first)
        #expect(first == .seconds(1) && second == (2, .seconds(2)))
        #expect(retries.isWaiting(file, at: t0 + first + .milliseconds(1999)))
        #expect(!retries.isWaiting(file, at: t0 + first + .seconds(2)))
        #expect(!retries.isWaiting(item("Documents/other.bin"), at: t0))
    }

    @Test func aNewVersionStartsAfresh() {
        var retries = RetryBackoff()
        _ = retries.failed(item("f"), at: t0)
        _ = retries.failed(item("f"), at: t0)
        #expect(!retries.isWaiting(item("f", version: 2), at: t0))
        #expect(retries.failed(item("f", version: 2), at: t0) == (1, .seconds(1)))
    }

    @Test func endingTheWaitsKeepsTheCounts() {
        var retries = RetryBackoff()
        _ = retries.failed(item("f"), at: t0)
        retries.endWaits(at: t0 + .seconds(1))
        #expect(!retries.isWaiting(item("f"), at: t0 + .seconds(1)))
        #expect(retries.failed(item("f"), at: t0 + .seconds(1)) == (2, .seconds(2)))
        retries.keepOnly([])
        #expect(retries.failed(item("f"), at: t0 + .seconds(2)) == (1, .seconds(1)))
        retries.forget([try! RelativePath("f")])
        #expect(!retries.isWaiting(item("f"), at: t0 + .seconds(2)))
    }
}
