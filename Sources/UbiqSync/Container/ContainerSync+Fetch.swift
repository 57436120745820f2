import Foundation
import Logging
import UbiqChunking
import UbiqModel

/// Fetching a file's missing chunks from peers: runs of adjacent chunks, asked of the peers
/// a ``SwarmPlan`` picks, each answer checked chunk by chunk against its hash before it is
/// written.
extension ContainerSync {
    /// A run asked for in one request: chunks that follow each other in the file, up to this
    /// many bytes.
    static let runBytes: UInt64 = 1 << 20
    /// Files at least this large are told to peers as they arrive, and served from where
    /// they are assembled (protocol 6).
    static let swarmSize: UInt64 = 4 << 20
    static let holdersRefresh: Duration = .seconds(1)

    /// What one request brought, or a moment to look again at what to ask (a request may
    /// have fallen overdue meanwhile).
    private enum RunOutcome: Sendable {
        /// Checked bytes up to `end` were written; `bytes` came over the wire.
        case received(SwarmPlan.Request, end: UInt64, bytes: Int)
        case failed(SwarmPlan.Request, SwarmPlan.Failure, reason: String)
        case lookAgain
    }

    /// How often the fetch looks again at what to ask while every request in flight waits.
    static let lookAgainEvery: Duration = .seconds(1)

    /// Fetches `chunks` (in file order) of `version` into `staged`. `holders`: the peers whose
    /// index lists the version; looked up again every ``holdersRefresh`` where the version
    /// vector is given (`holding`), since a peer's index may arrive while the file is fetched.
    /// With `announcing`, each run written is recorded and told to peers.
    func fetchAll(_ chunks: [ChunkRef], of version: SwarmVersion, holders: [DeviceID], holding vector: VersionVector?,
                  announcing: Bool, into staged: any StagedFile) async throws {
        guard !chunks.isEmpty else { return }
        guard let fetcher else { throw FetchError("no peer connection yet") }
        let (logger, clock, assemblies) = (self.logger, self.clock, self.assemblies)
        var plan = SwarmPlan(runs: Self.runs(of: chunks), seed: Self.seed(of: version, on: device))
        var (holders, lookedUp) = (holders, clock.now)
        try await withThrowingTaskGroup(of: RunOutcome.self) { group in
            var inFlight = 0
            var waking = false
            /// Why each peer last failed, for the error when no peer is left.
            var failures: [DeviceID: String] = [:]
            defer { group.cancelAll() }
            while !plan.isComplete {
                if isPaused { throw SyncPaused() }
                if let vector, clock.now - lookedUp >= Self.holdersRefresh {
                    holders = (try? index.holders(id, version.path, version: vector)) ?? holders
                    lookedUp = clock.now
                }
                let sources = await fetcher.sources(of: version, holders: holders)
                var claimed = RangeSet<UInt64>()
                while let request = plan.next(sources: sources, now: clock.now) {
                    let run = plan.runs[request.run]
                    if let span = run.span { claimed.insert(contentsOf: span) }
                    inFlight += 1
                    group.addTask {
                        await Self.fetch(run, request, of: version, fetcher: fetcher, into: staged, logger: logger)
                    }
                }
                if announcing, !claimed.isEmpty { fetcher.announce(SwarmProgress(version: version, held: RangeSet(), claimed: claimed)) }
                guard inFlight > 0 else {
                    guard !sources.isEmpty else { throw FetchError("no connected peer shares \(id)") }
                    let chunk = plan.unobtainable(sources: sources)?.first ?? chunks[0]
                    let why = failures.sorted { $0.key < $1.key }.map(\.value).joined(separator: "; ")
                    throw FetchError("no connected peer served chunk \(chunk.hash) of '\(version.path)'" + (why.isEmpty ? "" : ": \(why)"),
                                     kind: .notServed)
                }
                if !waking {
                    // Nothing else may arrive for a while (a stalled peer holds the rest): the
                    // end game must still get its turn.
                    waking = true
                    group.addTask {
                        try? await clock.sleep(for: Self.lookAgainEvery)
                        return .lookAgain
                    }
                }
                guard let outcome = try await group.next() else { break }
                switch outcome {
                case .lookAgain:
                    waking = false
                case .received(let request, let end, let bytes):
                    inFlight -= 1
                    guard let new = plan.received(request, through: end, bytes: bytes, now: clock.now) else { continue }
                    transfers.add(UInt64(new.count), to: version.path)
                    if announcing {
                        assemblies.hold(RangeSet(new), of: version)
                        fetcher.announce(SwarmProgress(version: version, held: RangeSet(new)))
                    }
                case .failed(let request, let failure, let reason):
                    inFlight -= 1
                    failures[request.peer] = reason
                    let wasDemoted = plan.demoted.contains(request.peer)
                    plan.failed(request, failure, now: clock.now)
                    if !wasDemoted, plan.demoted.contains(request.peer) { fetcher.demote(request.peer, because: reason) }
                }
            }
        }
    }

    /// Asks `request.peer` for the run; writes the answer's prefix whose chunks match their
    /// hashes.
    private static func fetch(_ run: [ChunkRef], _ request: SwarmPlan.Request, of version: SwarmVersion, fetcher: any ChunkFetcher,
                              into staged: any StagedFile, logger: Logger) async -> RunOutcome {
        guard let first = run.first else { return .received(request, end: 0, bytes: 0) }
        let bytes: Data
        do { bytes = try await fetcher.fetch(run, of: version, from: request.peer) } catch {
            let failure: SwarmPlan.Failure = switch (error as? FetchError)?.kind {
            case .notServed: .notServed
            case .badAnswer: .wrongBytes
            case .noAnswer, nil: .noAnswer
            }
            return .failed(request, failure, reason: "\(error)")
        }
        var end = 0
        for chunk in run {
            // Offsets from `startIndex`: a `Data` need not start at 0.
            let start = bytes.startIndex + end
            guard end + Int(chunk.size) <= bytes.count else { break }
            guard ChunkHasher.hash(bytes[start..<(start + Int(chunk.size))]) == chunk.hash else {
                logger.warning("chunk hash mismatch: dropped, fetching again", metadata: [
                    "path": "\(version.path)", "offset": "\(chunk.offset)", "peer": "\(request.peer)",
                ])
                break
            }
            end += Int(chunk.size)
        }
        guard end > 0 else {
            return .failed(request, .wrongBytes, reason: "chunk \(first.hash) of '\(version.path)' failed its hash")
        }
        do { try staged.write(bytes.prefix(end), at: first.offset) } catch {
            return .failed(request, .noAnswer, reason: "could not write: \(error)")
        }
        return .received(request, end: first.offset + UInt64(end), bytes: bytes.count)
    }

    /// The seed of the order this device fetches a version's runs in: one of its own for each
    /// device and version, so that devices fetching one file hold different pieces soon.
    static func seed(of version: SwarmVersion, on device: DeviceID) -> UInt64 {
        ChunkHasher.hash(Array((device.rawValue + "/" + version.contentKey).utf8)).bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The byte ranges chunks (in file order) cover, those that touch merged.
    static func spans(of chunks: [ChunkRef]) -> [Range<UInt64>] {
        var spans: [Range<UInt64>] = []
        for chunk in chunks {
            let end = chunk.offset + UInt64(chunk.size)
            if let last = spans.last, last.upperBound == chunk.offset {
                spans[spans.count - 1] = last.lowerBound..<end
            } else {
                spans.append(chunk.offset..<end)
            }
        }
        return spans
    }

    /// Splits chunks (in file order) into runs of adjacent chunks of up to ``runBytes``.
    static func runs(of chunks: [ChunkRef]) -> [[ChunkRef]] {
        var runs: [[ChunkRef]] = []
        var current: [ChunkRef] = []
        var bytes: UInt64 = 0
        for chunk in chunks {
            if let last = current.last, last.offset + UInt64(last.size) != chunk.offset || bytes + UInt64(chunk.size) > runBytes {
                runs.append(current)
                current = []
                bytes = 0
            }
            current.append(chunk)
            bytes += UInt64(chunk.size)
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }
}
