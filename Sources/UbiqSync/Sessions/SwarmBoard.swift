import Synchronization
import UbiqModel

/// What connected peers said they hold of versions they are still assembling
/// (`ChunkProgress`, protocol 6), so the puller can fetch those pieces from them; and which
/// peers' word no longer counts, having announced pieces they then did not serve.
///
/// Bounded: a peer's word on at most ``maxVersions`` versions is kept, the oldest dropped
/// first, and on each at most ``maxRanges`` ranges (a word more scattered than any transfer
/// makes is dropped); a peer's word goes with its connection.
final class SwarmBoard: Sendable {
    private struct Word {
        var held: [SwarmVersion: RangeSet<UInt64>] = [:]
        /// The versions in the order first heard of, oldest first.
        var order: [SwarmVersion] = []
    }

    private struct State {
        var words: [DeviceID: Word] = [:]
        var demotedUntil: [DeviceID: ContinuousClock.Instant] = [:]
    }

    private let state = Mutex(State())
    static let maxVersions = 64
    /// A 64 GiB file fetched in 1 MiB runs in random order holds at most 32,768 ranges.
    static let maxRanges = 32_768
    /// How long a demoted peer's word is not taken.
    static let demotion: Duration = .seconds(600)

    /// Takes in what `peer` said it holds now of a version (added to what it said before).
    func heard(_ progress: SwarmProgress, from peer: DeviceID) {
        state.withLock { state in
            var word = state.words[peer] ?? Word()
            if progress.ended {
                word.held[progress.version] = nil
                word.order.removeAll { $0 == progress.version }
            } else if var held = word.held[progress.version] {
                held.formUnion(progress.held)
                if held.ranges.count > Self.maxRanges {
                    word.held[progress.version] = nil
                    word.order.removeAll { $0 == progress.version }
                } else {
                    word.held[progress.version] = held
                }
            } else {
                if word.order.count == Self.maxVersions { word.held[word.order.removeFirst()] = nil }
                word.held[progress.version] = progress.held
                word.order.append(progress.version)
            }
            state.words[peer] = word
        }
    }

    /// What `peer` said it holds of `version`; nil when it said nothing, or its word does
    /// not count at `now`.
    func held(_ version: SwarmVersion, by peer: DeviceID, at now: ContinuousClock.Instant) -> RangeSet<UInt64>? {
        state.withLock { state in
            if let until = state.demotedUntil[peer], until > now { return nil }
            return state.words[peer]?.held[version]
        }
    }

    /// Drops what `peer` said: its connection ended.
    func forget(_ peer: DeviceID) {
        _ = state.withLock { $0.words.removeValue(forKey: peer) }
    }

    /// Takes no word from `peer` for ``demotion`` from `now`. Returns whether it was not
    /// demoted already.
    @discardableResult
    func demote(_ peer: DeviceID, at now: ContinuousClock.Instant) -> Bool {
        state.withLock { state in
            let already = state.demotedUntil[peer].map { $0 > now } ?? false
            state.demotedUntil[peer] = now.advanced(by: Self.demotion)
            state.words[peer] = nil
            return !already
        }
    }
}
