import Foundation
import Synchronization
import UbiqClient
import UbiqControlAPI
import UbiqModel
import UbiqTestSupport

/// Two agents of one account sharing a key-value store, beta dialing alpha through a
/// ``TCPRelay`` so a test can part them and bring them back together while both run.
struct KeyValuePair {
    static let store = try! KeyValueStoreID("TEAMID.com.example.game")

    let directory: TempDirectory
    let alpha: AgentProcess, beta: AgentProcess
    let relay: TCPRelay

    init(alphaEnvironment: [String: String] = [:], betaEnvironment: [String: String] = [:]) async throws {
        directory = try TempDirectory(prefix: "ubiq-kv")
        alpha = try AgentProcess(name: "alpha", in: directory)
        beta = try AgentProcess(name: "beta", in: directory)
        relay = try TCPRelay(to: alpha.port)
        beta.peers = [relay.port]
        for (agent, environment) in [(alpha, alphaEnvironment), (beta, betaEnvironment)] {
            agent.extraArguments = ["--kvstore", Self.store.rawValue]
            agent.environment = environment
        }
        try await alpha.createAccount()
        try await beta.join(alpha)
    }

    func start() async throws {
        try await alpha.startAndWait()
        try await beta.startAndWait()
        try await waitLinked(true)
    }

    func stop() {
        relay.close()
        alpha.stop()
        beta.stop()
    }

    /// Waits until both agents see each other connected (or both see each other gone).
    func waitLinked(_ linked: Bool) async throws {
        try await waitUntil(linked ? "alpha and beta to connect" : "alpha and beta to notice the cut") {
            for agent in [alpha, beta] {
                let connected = try await agent.status().peers.contains { $0.connected }
                if connected != linked { return false }
            }
            return true
        }
    }

    func part() async throws {
        relay.sever()
        try await waitLinked(false)
    }

    func rejoin() async throws {
        relay.heal()
        try await waitLinked(true)
    }

    func logs() -> String {
        [alpha, beta].map { "--- \($0.name) ---\n" + $0.logText().suffix(6000) }.joined(separator: "\n")
    }
}

extension AgentProcess {
    func kv<T: Sendable>(_ body: (UbiqAgentClient) async throws -> T) async throws -> T {
        try await withClient(body)
    }

    func values() async throws -> [String: PropertyListValue] {
        try await withClient { try await $0.values(store: KeyValuePair.store) }
    }

    func set(_ values: [String: PropertyListValue]) async throws {
        try await withClient { try await $0.set(store: KeyValuePair.store, values) }
    }
}

/// A subscriber that stays connected and records every notice it gets.
final class KeyValueWatcher: Sendable {
    final class Log: Sendable {
        let notices = Mutex<[KeyValueChangeNotice]>([])
    }

    let client: UbiqAgentClient
    private let received = Log()
    private let task: Task<Void, Never>

    init(_ agent: AgentProcess, onNotice: (@Sendable (KeyValueChangeNotice, UbiqAgentClient) async -> Void)? = nil) async throws {
        let client = try await UbiqAgentClient.connect(socketPath: agent.socket)
        let stream = try await client.keyValueChanges(store: KeyValuePair.store)
        let received = self.received
        self.client = client
        task = Task {
            for await notice in stream {
                received.notices.withLock { $0.append(notice) }
                await onNotice?(notice, client)
            }
        }
    }

    var notices: [KeyValueChangeNotice] { received.notices.withLock { $0 } }

    func waitFor(_ what: String, timeout: Duration = .seconds(30),
                 _ match: @escaping @Sendable (KeyValueChangeNotice) -> Bool) async throws -> KeyValueChangeNotice {
        var found: KeyValueChangeNotice?
        try await waitUntil(what, timeout: timeout, every: .milliseconds(5)) {
            found = self.notices.first(where: match)
            return found != nil
        }
        return found!
    }

    func close() async {
        task.cancel()
        await client.close()
    }
}
