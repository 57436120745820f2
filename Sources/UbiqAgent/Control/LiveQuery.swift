import Synchronization
import UbiqControl
import UbiqControlAPI
import UbiqIndex
import UbiqModel
import UbiqSync

/// One running `query.start`: gathers the container's matching items, then follows the
/// container's item changes and tells its client what they changed, in `query.update`
/// batches, until stopped or the connection ends.
final class LiveQuery: Sendable {
    /// How changes are coalesced: a batch goes out once no change has come for `quiet`, or
    /// `maxDelay` after its first change while they keep coming, and never sooner than
    /// `interval` after the previous batch. A lone change is told within `quiet`; a long
    /// sync makes at most one notification per `interval`.
    struct Batching: Sendable {
        var quiet: Duration = .milliseconds(20)
        var maxDelay: Duration = .milliseconds(250)
        var interval: Duration = .milliseconds(250)
    }

    private struct State {
        /// What the client has been told.
        var results: QueryResults
        /// The latest state of each path changed since the last batch; nil when it no longer matches.
        var pending: [PathBytes: QueryItem?] = [:]
        var lastChange: ContinuousClock.Instant?
    }

    let id: String
    let predicate: QueryPredicate
    let order: QueryOrder
    /// The gathering phase's result, sorted.
    let gathered: [QueryItem]
    private let changes: AsyncStream<ItemChange>
    private let container: ContainerSync
    private let state: Mutex<State>
    private let runner = Mutex<Task<Void, Never>?>(nil)

    /// Subscribes to `container`'s changes, then gathers what matches now. A change recorded
    /// between the two is seen by both; merging it again changes nothing.
    init(id: String, container: ContainerSync, predicate: QueryPredicate, order: QueryOrder) throws {
        self.id = id
        self.predicate = predicate
        self.order = order
        changes = container.itemChanges()
        let uploaded = try container.uploadedVersions()
        let matches = try container.items(under: predicate.root).lazy.filter { predicate.matches($0.item) }.map { indexed in
            Self.queryItem(indexed.item, downloaded: indexed.downloaded, uploaded: uploaded[indexed.item.path]?.contains(indexed.item.version) == true,
                           progress: container.transfers.transfer(indexed.item.path)?.fraction)
        }
        self.container = container
        let results = QueryResults(matches)
        gathered = results.sorted(order)
        state = Mutex(State(results: results))
    }

    /// An item as queries and `item.status` report it: `uploaded` when another device holds
    /// this exact version, `downloadProgress` while its content is being fetched.
    static func queryItem(_ item: Item, downloaded: Bool, uploaded: Bool, progress: Double?) -> QueryItem {
        var result = QueryItem(item, downloaded: downloaded)
        result.uploaded = uploaded
        result.downloadProgress = progress
        return result
    }

    static func queryItem(_ indexed: IndexedItem, in container: ContainerSync) -> QueryItem {
        queryItem(indexed.item, downloaded: indexed.downloaded, uploaded: container.isUploaded(indexed.item),
                  progress: container.transfers.transfer(indexed.item.path)?.fraction)
    }

    /// Starts sending updates to `connection`.
    func run(on connection: ControlConnection, batching: Batching) {
        let (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await self.collect(signal: signal)
                    await connection.tellFellBehind(FellBehindNotice(method: ControlNotification.queryUpdate.rawValue, query: self.id))
                }
                group.addTask { await self.deliver(signals, to: connection, batching: batching) }
                await group.next()
                group.cancelAll()
            }
        }
        runner.withLock { $0 = task }
    }

    /// Stops updates; returns once none can be sent any more.
    func stop() async {
        guard let task = runner.withLock({ $0 }) else { return }
        task.cancel()
        await task.value
    }

    private func collect(signal: AsyncStream<Void>.Continuation) async {
        for await change in changes {
            let now = predicate.matches(change.item)
                ? Self.queryItem(change.item, downloaded: change.downloaded, uploaded: container.isUploaded(change.item),
                                 progress: container.transfers.transfer(change.item.path)?.fraction)
                : nil
            state.withLock { state in
                state.pending[PathBytes(change.item.path.rawValue)] = .some(now)
                state.lastChange = .now
            }
            signal.yield()
        }
        signal.finish()
    }

    private func deliver(_ signals: AsyncStream<Void>, to connection: ControlConnection, batching: Batching) async {
        var lastSent: ContinuousClock.Instant?
        for await _ in signals {
            guard await settle(batching, notBefore: lastSent.map { $0 + batching.interval }) else { return }
            let update = state.withLock { state -> QueryUpdateNotice? in
                let latest = state.pending
                state.pending = [:]
                return state.results.merge(latest, query: id, order: order)
            }
            guard let update else { continue }
            do {
                try await connection.notify(method: ControlNotification.queryUpdate.rawValue, params: try JSONValue(encoding: update))
                lastSent = .now
            } catch {
                connection.logger.debug("query update not sent; the query ends", metadata: ["query": "\(id)", "error": "\(error)"])
                return
            }
        }
    }

    /// Waits until changes pause or the batch is old enough, and until `notBefore`; false
    /// when cancelled.
    private func settle(_ batching: Batching, notBefore: ContinuousClock.Instant?) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + batching.maxDelay
        while true {
            let quietAt = (state.withLock { $0.lastChange } ?? clock.now) + batching.quiet
            let wake = max(min(quietAt, deadline), notBefore ?? clock.now)
            if clock.now >= wake { return true }
            do { try await Task.sleep(until: wake, clock: clock) } catch { return false }
        }
    }
}
