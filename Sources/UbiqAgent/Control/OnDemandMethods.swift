import UbiqControl
import UbiqControlAPI
import UbiqModel
import UbiqSync

/// `item.startDownloading` and `item.evict`, and the download a coordinated access to a
/// file that is not here waits for.
struct OnDemandMethods: Sendable {
    let status: AgentStatusSource

    static let defaultTimeout = 60.0

    func handle(_ method: ControlMethod, params: JSONValue?, connection: ControlConnection) async throws -> JSONValue {
        switch method {
        case .itemStartDownloading:
            let request = try RPCParams.decode(ItemDownloadParams.self, from: params)
            let container = try status.container(request.container)
            let path = try ControlPath.item(request.path)
            try await Self.mapped { () async throws(OnDemandError) in try await container.startDownloading(path) }
            guard request.wait == true else {
                return try JSONValue(encoding: ItemDownloadResult(downloaded: (try? await container.isDownloaded(path)) ?? false))
            }
            let timeout = try ControlTimeout.duration(request.timeout, default: Self.defaultTimeout)
            let done = try await ensureDownloaded(container, path, timeout: timeout, connection: connection)
            return try JSONValue(encoding: ItemDownloadResult(downloaded: done))
        case .itemEvict:
            let request = try RPCParams.decode(ItemPathParams.self, from: params)
            let container = try status.container(request.container)
            let path = try ControlPath.item(request.path)
            try await Self.mapped { () async throws(OnDemandError) in try await container.evict(path) }
            return [:]
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }

    /// Fetches the content of `path` if it is an on-demand file not here, telling the client
    /// how far it has come every 200 ms and once more when it is all here; true once it is.
    func ensureDownloaded(_ container: ContainerSync, _ path: RelativePath, timeout: Duration, connection: ControlConnection) async throws -> Bool {
        guard container.onDemand, (try? await container.isDownloaded(path)) == false else { return true }
        @Sendable func report(done: UInt64, total: UInt64) async throws {
            let notice = DownloadProgressNotice(container: container.id, path: path.rawValue, done: Int64(done), total: Int64(total))
            try await connection.notify(method: ControlNotification.coordinateProgress.rawValue, params: try JSONValue(encoding: notice))
        }
        let reporter = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .milliseconds(200))
                if let transfer = container.transfers.transfer(path) { try await report(done: transfer.done, total: transfer.total) }
            }
        }
        let downloaded: Bool
        do {
            downloaded = try await Self.mapped { () async throws(OnDemandError) in
                try await container.download(path, timeout: max(.zero, timeout))
            }
        } catch {
            reporter.cancel()
            throw error
        }
        reporter.cancel()
        _ = await reporter.result
        if downloaded, let size = try? container.item(at: path)?.item.size {
            try? await report(done: size, total: size)
        }
        return downloaded
    }

    private static func mapped<T>(_ body: () async throws(OnDemandError) -> T) async throws(RPCError) -> T {
        do { return try await body() } catch {
            let code: RPCError.Code = switch error.code {
            case .notFound: .notFound
            case .notAFile: .invalidPath
            case .notOnDemand: .notOnDemand
            case .notUploaded: .notUploaded
            case .busy, .changed: .unavailable
            }
            throw RPCError(code, error.reason)
        }
    }
}
