import Foundation
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// A real `ubiqd` process on loopback for live tests, with its own state folder, container
/// folder, control socket and log file under one test directory.
public final class AgentProcess: @unchecked Sendable {
    public static let defaultContainer = try! ContainerID("TEAMID.com.example.notes")
    /// The agent's own default port (`AgentConfiguration.defaultPort`).
    public static let defaultPort = 22100

    public let name: String
    public let home: String
    public var port: Int
    public var peers: [Int]
    public let container: ContainerID
    public var extraArguments: [String] = []
    /// mDNS discovery; off by default so loopback tests never touch avahi.
    public var discovery = false
    /// The web page's port (0: the kernel's choice, which `ui.url` tells); nil, the default:
    /// no page, so agents started side by side never compete for its default port.
    public var webPagePort: Int?
    /// Where an invitation takes joins: 0, the kernel's choice, unless a test sets one.
    public var joinPort = 0
    /// The LAN workstation to run in (its network and mount namespaces); nil for loopback.
    public var lanHost: LANHost?
    public var environment: [String: String] = [:]
    /// `download = "on-demand"` for the container (written to a config file), else "all".
    public var onDemand = false
    /// More lines of the container's table in a config file (`extended_attributes = false`).
    public var containerSettings: [String] = []
    /// Lines of config-file tables after the container's (e.g. a `[[peer_limit]]`).
    public var configTables: [String] = []
    /// Runs the agent as the user `nobody` (root's tests of what an ordinary user's agent may
    /// not read or write): see ``AgentProcess/startAsOrdinaryUser(_:)``.
    public var asOrdinaryUser = false
    /// Runs the agent in a user namespace of its own whose limit of inotify watches is this
    /// (`/proc/sys/user/max_inotify_watches`, which a namespace's root may lower for itself),
    /// so a test meets the kernel's watch limit without lowering the machine's.
    public var inotifyWatchLimit: Int?
    private var process: Process?
    /// The relay to an ordinary user's agent, which takes its own user's connections only.
    var relay: Process?
    let lock = NSLock()

    public var state: String { home + "/state" }
    public var root: String { home + "/container" }
    /// Where clients connect: the agent's socket, or the relay to it (``asOrdinaryUser``).
    public var socket: String { asOrdinaryUser ? home + "/relay.sock" : agentSocket }
    /// The socket the agent listens on.
    public var agentSocket: String { home + "/agent.sock" }
    public var log: String { home + "/ubiqd.log" }

    public init(name: String, in directory: TempDirectory, port: Int? = nil, peers: [Int] = [],
                container: ContainerID = AgentProcess.defaultContainer) throws {
        self.name = name
        self.home = directory.appending(name)
        self.port = try port ?? freeLoopbackPort()
        self.peers = peers
        self.container = container
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    deinit { kill() }

    // MARK: binaries

    /// The folder holding the built `ubiqd` and `ubiq`: `UBIQ_BIN_DIR`, else beside the test binary.
    public static var binDirectory: String {
        if let dir = ProcessInfo.processInfo.environment["UBIQ_BIN_DIR"], !dir.isEmpty { return dir }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("ubiqd").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.path
    }

    /// Runs the `ubiq` CLI to completion, with `input` on its standard input; returns its
    /// standard output, throws on failure.
    @discardableResult
    public static func cli(_ arguments: [String], input: Data? = nil) async throws -> String {
        let result = try await run("ubiq", arguments, input: input)
        guard result.status == 0 else {
            throw TimedOut(description: "ubiq \(arguments.joined(separator: " ")) failed (\(result.status)): " + result.errors)
        }
        return result.output
    }

    /// Creates a new account in this agent's state folder.
    public func createAccount() async throws {
        try await Self.cli(["account", "create", "--state", state])
    }

    /// Makes this agent a device of `other`'s account.
    public func join(_ other: AgentProcess) async throws {
        let bundle = home + "/account.bundle"
        try await Self.cli(["account", "export", "--state", other.state, "--out", bundle])
        try await Self.cli(["account", "join", bundle, "--state", state])
    }

    // MARK: life cycle

    public func start() throws {
        var arguments = ["--state", state, "--socket", agentSocket, "--device-name", name]
        // On a LAN host an agent on the default port listens where a user's would: on the
        // default address (dual-stack `[::]`), which it picks without a flag.
        if lanHost == nil {
            arguments += ["--listen", "127.0.0.1:\(port)"]
        } else if port != Self.defaultPort {
            arguments += ["--listen", "[::]:\(port)"]
        }
        if onDemand || !containerSettings.isEmpty || !configTables.isEmpty {
            let config = home + "/ubiqd.toml"
            let lines = ["[[container]]", "id = \"\(container)\"", "path = \"\(root)\"", "download = \"\(onDemand ? "on-demand" : "all")\""]
                + containerSettings + configTables
            try (lines.joined(separator: "\n") + "\n").write(toFile: config, atomically: false, encoding: .utf8)
            arguments += ["--config", config]
        } else {
            arguments += ["--container", "\(container)=\(root)"]
        }
        if !discovery { arguments.append("--no-discovery") }
        arguments += webPagePort.map { ["--ui-listen", "127.0.0.1:\($0)"] } ?? ["--no-ui"]
        // The default, the listen port's next, may be another test agent's port.
        arguments += ["--join-port", "\(joinPort)"]
        for peer in peers { arguments += ["--peer", "127.0.0.1:\(peer)"] }
        arguments += extraArguments
        if let lanHost {
            let process = try lanHost.spawn([Self.binDirectory + "/ubiqd"] + arguments, environment: environment, log: log)
            lock.withLock { self.process = process }
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binDirectory + "/ubiqd")
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        if asOrdinaryUser { try startAsOrdinaryUser(process) }
        if let limit = inotifyWatchLimit {
            let ubiqd = process.executableURL!.path
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            // `exec`: the agent keeps the process ID that `stop()` signals.
            process.arguments = ["unshare", "--user", "--map-root-user", "sh", "-c",
                                 "echo \(limit) > /proc/sys/user/max_inotify_watches && exec \"$0\" \"$@\"", ubiqd]
                + (process.arguments ?? [])
        }
        if !FileManager.default.fileExists(atPath: log) { _ = FileManager.default.createFile(atPath: log, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        lock.withLock { self.process = process }
    }

    /// Starts and waits until the control socket answers.
    public func startAndWait(timeout: Duration = .seconds(120)) async throws {
        try start()
        try await waitUntil("\(name) to answer on its socket", timeout: timeout) {
            guard lock.withLock({ process?.isRunning ?? false }) else {
                throw TimedOut(description: "\(name) exited: \(logText().suffix(2000))")
            }
            return (try? await status()) != nil
        }
    }

    /// The running agent's process ID (nil on a LAN host or when stopped).
    public var pid: Int32? { lock.withLock { self.process?.processIdentifier } }

    /// SIGTERM and wait; the exit status (nil when it was not running here).
    @discardableResult
    public func stop() -> Int32? {
        guard let process = lock.withLock({ self.process }) else { return nil }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        lock.withLock { self.process = nil }
        stopRelay()
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// SIGKILL and wait: a crash.
    public func kill() {
        guard let process = lock.withLock({ self.process }) else { return }
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        lock.withLock { self.process = nil }
        stopRelay()
    }

    /// SIGSTOP: the agent stalls with its connections open, as a hung or swapped-out one would.
    public func suspend() {
        guard let process = lock.withLock({ self.process }), process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGSTOP)
    }

    /// SIGCONT after ``suspend()``.
    public func resume() {
        guard let process = lock.withLock({ self.process }), process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGCONT)
    }

    public var isRunning: Bool { lock.withLock { process?.isRunning ?? false } }

    public func logText() -> String {
        (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    }

    // MARK: control socket

    public func withClient<T: Sendable>(_ body: (UbiqAgentClient) async throws -> T) async throws -> T {
        let client = try await UbiqAgentClient.connect(socketPath: socket)
        do {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }

    public func status() async throws -> AgentStatus {
        try await withClient { try await $0.status() }
    }

    /// The items of a folder of the container (its top by default) as `items.list` gives them.
    public func items(in folder: String? = nil) async throws -> [ItemEntry] {
        try await withClient { try await $0.items(container: container, path: folder) }
    }

    public func versions(_ path: String) async throws -> VersionsList {
        try await withClient { try await $0.versions(container: container, path: path) }
    }

    /// Where the agent serves its web page (``webPagePort``), with the token.
    public func webPageAddress() async throws -> WebPageAddress {
        try await withClient { try await $0.webPageAddress() }
    }

    // MARK: files

    public func path(_ relative: String) -> String { root + "/" + relative }

    public func write(_ relative: String, _ text: String) throws {
        try write(relative, Data(text.utf8))
    }

    public func write(_ relative: String, _ data: Data) throws {
        let url = URL(fileURLWithPath: path(relative))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    public func read(_ relative: String) -> String? {
        try? String(contentsOfFile: path(relative), encoding: .utf8)
    }

    public func digest() throws -> [String: String] { try TreeDigest.of(root) }
}

/// Waits until every agent's folder holds the same tree, with the same mtimes to the
/// nanosecond, and that tree satisfies `check`.
public func waitForConvergence(
    _ agents: [AgentProcess], timeout: Duration = .seconds(120), _ what: String = "agents to converge",
    check: @escaping ([String: String]) -> Bool = { _ in true }
) async throws {
    try await waitUntil(what, timeout: timeout) {
        let digests = try agents.map { try $0.digest() }
        guard digests.dropFirst().allSatisfy({ $0 == digests[0] }), check(digests[0]) else { return false }
        let times = try agents.map { try TreeDigest.times(of: $0.root) }
        return times.dropFirst().allSatisfy { $0 == times[0] }
    }
}
