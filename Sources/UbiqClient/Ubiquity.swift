import Foundation
import UbiqControlAPI
import UbiqModel

/// The iCloud entry points an application starts from (`FileManager`'s
/// `url(forUbiquityContainerIdentifier:)` and `ubiquityIdentityToken`), answered by the
/// local agent. Each call opens a short connection of its own.
public struct Ubiquity: Sendable {
    public let socketPath: String

    public init(socketPath: String = ControlSocketPath.default()) {
        self.socketPath = socketPath
    }

    /// The folder of `container` on this device, nil when this device does not sync it or
    /// its folder is missing. Documents go under `.appending(path: "Documents")`.
    public func url(forUbiquityContainerIdentifier container: ContainerID) async throws -> URL? {
        let result = try await UbiqConnection.withConnection(socketPath: socketPath) { connection in
            try await UbiqAgentClient(connection: connection).containerURL(container)
        }
        guard result.available, let path = result.url else { return nil }
        return URL(filePath: path, directoryHint: .isDirectory)
    }

    /// The same for an identifier given as text, such as
    /// `TEAMID.com.example.app`; throws `ModelError` for one of another form.
    public func url(forUbiquityContainerIdentifier identifier: String) async throws -> URL? {
        try await url(forUbiquityContainerIdentifier: try ContainerID(identifier))
    }

    /// The account's identity token (hex SHA-256 of the account CA's public key), nil when
    /// the agent has no account. Throws ``UbiqClientError`` when no agent answers.
    public func ubiquityIdentityToken() async throws -> String? {
        try await UbiqConnection.withConnection(socketPath: socketPath) { connection in
            try await UbiqAgentClient(connection: connection).identity().identityToken
        }
    }

    /// The identity token now, then each time it changes; nil while no agent answers or the
    /// agent is signed out. The agent tells a watching connection at once when the
    /// workstation signs out (`ubiq account leave`) or in (`ubiq account create`, `join`),
    /// iCloud's `NSUbiquityIdentityDidChangeNotification`.
    ///
    /// The stream holds a connection to the agent and, when it drops, reconnects after
    /// `retryDelay`, the delay doubling up to `maximumRetryDelay` while no agent answers.
    /// Equal consecutive values are yielded once. Stop iterating to end it.
    public func identityChanges(
        retryDelay: Duration = .milliseconds(50), maximumRetryDelay: Duration = .seconds(2)
    ) -> AsyncStream<String?> {
        let socketPath = self.socketPath
        let (stream, continuation) = AsyncStream.makeStream(of: String?.self, bufferingPolicy: .bufferingNewest(16))
        let task = Task {
            var last: String??
            var delay = retryDelay
            while !Task.isCancelled {
                var token: String??
                if let connection = try? await UbiqConnection.connect(socketPath: socketPath) {
                    let notifications = connection.notifications
                    if let now: AccountIdentityChange = try? await connection.call(ControlMethod.accountWatch.rawValue) {
                        token = .some(now.identityToken)
                        if last != token { continuation.yield(now.identityToken) }
                        last = token
                        // Until the agent goes away or this task is cancelled.
                        for await notification in notifications where notification.method == ControlNotification.accountIdentityChanged.rawValue {
                            guard let change = try? notification.params?.decode(AccountIdentityChange.self) else { continue }
                            token = .some(change.identityToken)
                            if last != token { continuation.yield(change.identityToken) }
                            last = token
                        }
                    }
                    await connection.close()
                }
                if Task.isCancelled { break }
                if token != nil {
                    delay = retryDelay
                } else {
                    if last != .some(nil) { continuation.yield(nil) }
                    last = .some(nil)
                }
                try? await Task.sleep(for: delay)
                if token == nil { delay = min(delay * 2, maximumRetryDelay) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
