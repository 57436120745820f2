import Synchronization
import Testing
import UbiqModel
import UbiqTestSupport
@testable import UbiqSync

/// Word of pieces held goes to each peer on its own: a peer whose link is full holds up no
/// other peer's word, and hears what it missed, merged, once it takes messages again.
@Suite(.timeLimit(.minutes(1))) struct SwarmAnnouncerTests {
    let stuck = DeviceID("STUCK"), open = DeviceID("OPEN")
    let version = SwarmVersion(container: try! ContainerID("ubiq.drive"), path: try! RelativePath("big"),
                               contentKey: String(repeating: "0", count: 64), size: 1 << 30)

    /// What each peer was sent, batch by batch; sends to `stuck` wait until `released`.
    final class Sends: Sendable {
        let batches = Mutex<[DeviceID: [[SwarmProgress]]]>([:])
        let released = Mutex(false)

        func batches(to peer: DeviceID) -> [[SwarmProgress]] { batches.withLock { $0[peer] ?? [] } }

        func held(by peer: DeviceID) -> RangeSet<UInt64> {
            var all = RangeSet<UInt64>()
            for batch in batches(to: peer) { for progress in batch { all.formUnion(progress.held) } }
            return all
        }
    }

    @Test func aPeerWhoseSendsHangHoldsUpNoOtherPeersWord() async throws {
        let announcer = SwarmAnnouncer()
        let sends = Sends()
        let (stuck, open) = (stuck, open)
        func add(_ held: Range<UInt64>) {
            announcer.add(SwarmProgress(version: version, held: RangeSet(held)), executor: WorkerPool.engine,
                          recipients: { _ in [stuck, open] },
                          send: { peer, batch in
                              sends.batches.withLock { $0[peer, default: []].append(batch) }
                              while peer == stuck, !sends.released.withLock({ $0 }) {
                                  try? await Task.sleep(for: .milliseconds(5))
                              }
                          })
        }
        add(0..<10)
        try await waitUntil("both peers to be sent the first word") {
            sends.batches(to: stuck).count == 1 && sends.held(by: open) == RangeSet(0..<10)
        }
        add(10..<20)
        add(20..<30)
        try await waitUntil("the open peer to hear the rest while the other's send hangs") {
            sends.held(by: open) == RangeSet(0..<30)
        }
        #expect(sends.batches(to: stuck).count == 1)
        sends.released.withLock { $0 = true }
        try await waitUntil("the stuck peer to hear what it missed") {
            sends.held(by: stuck) == RangeSet(0..<30)
        }
        // What came in while its send hung went in one message, merged.
        let later = sends.batches(to: stuck).dropFirst()
        #expect(later.count == 1)
        #expect(later.first?.map(\.held) == [RangeSet(10..<30)])
    }
}
