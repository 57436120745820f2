import Synchronization
import UbiqModel

/// What connected peers said they hold of versions they are still assembling
/// (`ChunkProgress`, protocol 6), so the puller can fetch those pieces from them; and which
/// peers' word no longer counts, having announced pieces they then did not serve.
///
/// Bounded: a peer's word on at most ``maxVersions`` versions is kept, the oldest dropped
/// first, and on each at most ``maxRanges`` ranges, held and claimed (a word more scattered
/// than any transfer makes is dropped); a peer's word goes with its connection.
final class SwarmBoard: Sendable {
    /// What a peer said of one version: held, and asked for.
    struct Pieces: Sendable, Equatable {
        var held = RangeSet<UInt64>()
        var claimed = RangeSet<UInt64>()
    }

    private struct Word {
        var pieces: [SwarmVersion: Pieces] = [:]
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

    /// Takes in what `peer` said it holds of a version, and has asked for (added to what it
    /// said before).
    func heard(_ progress: SwarmProgress, from peer: DeviceID) {
        state.withLock { state in
            var word = state.words[peer] ?? Word()
            if progress.ended {
                word.pieces[progress.version] = nil
                word.order.removeAll { $0 == progress.version }
            } else if var pieces = word.pieces[progress.version] {
                pieces.held.formUnion(progress.held)
                pieces.claimed.formUnion(progress.claimed)
                if pieces.held.ranges.count + pieces.claimed.ranges.count > Self.maxRanges {
                    word.pieces[progress.version] = nil
                    word.order.removeAll { $0 == progress.version }
                } else {
                    word.pieces[progress.version] = pieces
                }
            } else {
                if word.order.count == Self.maxVersions { word.pieces[word.order.removeFirst()] = nil }
                word.pieces[progress.version] = Pieces(held: progress.held, claimed: progress.claimed)
                word.order.append(progress.version)
            }
            state.words[peer] = word
        }
    }

    /// What `peer` said it holds and has asked for of `version`; nil when it said nothing, or
    /// its word does not count at `now`.
    func pieces(_ version: SwarmVersion, of peer: DeviceID, at now: ContinuousClock.Instant) -> Pieces? {
        state.withLock { state in
            if let until = state.demotedUntil[peer], until > now { return nil }
            return state.words[peer]?.pieces[version]
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
