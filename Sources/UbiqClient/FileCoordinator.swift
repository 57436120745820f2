import UbiqControlAPI
import UbiqModel

/// NSFileCoordinator for ubiq containers: runs a closure while the agent holds a read or
/// write lease on the items. Readers share; a writer excludes everyone, the agent included,
/// so a coordinated read never sees a file the agent is replacing, and changes arriving
/// from peers wait until a coordinated write ends.
public struct FileCoordinator: Sendable {
    public let client: UbiqAgentClient
    public let container: ContainerID

    public init(client: UbiqAgentClient, container: ContainerID) {
        self.client = client
        self.container = container
    }

    public func coordinate<T: Sendable>(readingItemAt path: String, timeout: Duration = .seconds(30),
                                        progress: (@Sendable (DownloadProgressNotice) -> Void)? = nil,
                                        _ body: () async throws -> T) async throws -> T {
        try await coordinate([CoordinationItem(path: path, access: "read")], timeout: timeout, progress: progress, body)
    }

    public func coordinate<T: Sendable>(writingItemAt path: String, timeout: Duration = .seconds(30),
                                        _ body: () async throws -> T) async throws -> T {
        try await coordinate([CoordinationItem(path: path, access: "write")], timeout: timeout, body)
    }

    /// Reads one item while writing another (a copy or an export), both held together.
    public func coordinate<T: Sendable>(readingItemAt source: String, writingItemAt destination: String,
                                        timeout: Duration = .seconds(30), _ body: () async throws -> T) async throws -> T {
        try await coordinate([CoordinationItem(path: source, access: "read"), CoordinationItem(path: destination, access: "write")],
                             timeout: timeout, body)
    }

    /// Holds leases on all `items` while `body` runs; throws `RPCError` `.leaseTimeout` when
    /// they are not granted within `timeout`. A file of an on-demand container that is not
    /// on this device is downloaded first, within the same `timeout`; `progress` hears how far
    /// that has come (it reads this connection's notifications, so use a connection that has
    /// no other subscription).
    public func coordinate<T: Sendable>(_ items: [CoordinationItem], timeout: Duration,
                                        progress: (@Sendable (DownloadProgressNotice) -> Void)? = nil,
                                        _ body: () async throws -> T) async throws -> T {
        let seconds = ControlTimeout.seconds(timeout)
        var reporter: Task<Void, Never>?
        if let progress {
            let notifications = client.connection.notifications
            reporter = Task {
                for await notification in notifications where notification.method == ControlNotification.coordinateProgress.rawValue {
                    if let notice = try? notification.params?.decode(DownloadProgressNotice.self) { progress(notice) }
                }
            }
        }
        let lease: CoordinateAcquireResult
        do {
            lease = try await client.connection.call(
                ControlMethod.coordinateAcquire.rawValue, params: CoordinateAcquireParams(container: container, items: items, timeout: seconds))
        } catch {
            reporter?.cancel()
            throw error
        }
        // The reporter still hands over the notices that came before the answer, then ends.
        reporter?.cancel()
        await reporter?.value
        let result: T
        do {
            result = try await body()
        } catch {
            try? await release(lease.lease)
            throw error
        }
        try await release(lease.lease)
        return result
    }

    private func release(_ lease: UInt64) async throws {
        _ = try await client.connection.call(ControlMethod.coordinateRelease.rawValue, params: try JSONValue(encoding: CoordinateReleaseParams(lease: lease)))
    }
}

/// What a presenter hears of its item (NSFilePresenter's callbacks).
public enum PresenterNotice: Sendable, Equatable {
    /// The item, or something in the presented folder at `path`, changed. `origin` is
    /// `local`, `remote`, or `unknown` after a restart (see ``UbiqAgentClient/presentedItemEvents(container:path:)``).
    case didChange(path: String, origin: String)
    /// It moved; the presenter now follows it at `to`.
    case didMove(from: String, to: String)
    case didDelete(path: String)
    /// New unresolved conflict versions, by id.
    case conflict(path: String, versions: [String])
}

extension UbiqAgentClient {
    /// Registers a presenter for `path` and returns what it hears until the stream is
    /// dropped. It reads this connection's notifications: use one connection per presenter.
    /// If the agent ends the presenter because this reader fell behind, it registers again
    /// where the item now is and posts `didChange` with origin `unknown`, since anything
    /// there may have changed meanwhile.
    public func presentedItemEvents(container: ContainerID, path: String) async throws -> AsyncStream<PresenterNotice> {
        let first = try await registerPresenter(container: container, path: path)
        let notifications = connection.notifications
        return AsyncStream { continuation in
            let task = Task {
                var presenter = first.presenter
                var presented = path
                for await notification in notifications {
                    if notification.method == ControlNotification.subscriptionFellBehind.rawValue {
                        guard let notice = try? notification.params?.decode(FellBehindNotice.self),
                              notice.method == FellBehindNotice.presenterMethod, notice.presenter == presenter else { continue }
                        guard let again = try? await registerPresenter(container: container, path: presented) else { break }
                        presenter = again.presenter
                        continuation.yield(.didChange(path: presented, origin: "unknown"))
                        continue
                    }
                    guard let kind = ControlNotification(rawValue: notification.method),
                          let event = try? notification.params?.decode(PresenterEvent.self), event.presenter == presenter
                    else { continue }
                    switch kind {
                    case .presenterDidChange: continuation.yield(.didChange(path: event.path, origin: event.origin))
                    case .presenterDidMove:
                        let to = event.to ?? event.path
                        if event.path == presented { presented = to }
                        continuation.yield(.didMove(from: event.path, to: to))
                    case .presenterDidDelete: continuation.yield(.didDelete(path: event.path))
                    case .presenterConflict: continuation.yield(.conflict(path: event.path, versions: event.conflicts ?? []))
                    default: continue
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func registerPresenter(container: ContainerID, path: String) async throws -> PresenterID {
        try await connection.call(ControlMethod.presenterRegister.rawValue, params: PresenterRegisterParams(container: container, path: path))
    }
}
