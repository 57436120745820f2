import Foundation
import UbiqChunking
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// Plays a ``PartitionSchedule`` on agents of one account on a ``NamespaceLAN`` and keeps the
/// ``WriteLog``. A client writes the way an editor would: it reads what is on that host's
/// disk and writes under a coordinated write lease while the agent runs (so no change from a
/// peer lands between its read and its write), and directly while the agent is down.
public final class PartitionRun: @unchecked Sendable {
    public static let store = try! KeyValueStoreID("TEAMID.com.example.game")

    public let schedule: PartitionSchedule
    public let agents: [AgentProcess]
    public let lan: NamespaceLAN
    public private(set) var log = WriteLog()
    /// Every value each key was set to.
    public private(set) var keyValuesWritten: [String: Set<String>] = [:]
    /// What each step did, as run.
    public private(set) var record: [String] = []
    private var killed = Set<Int>()

    public init(schedule: PartitionSchedule, agents: [AgentProcess], lan: NamespaceLAN) {
        precondition(agents.count == schedule.hosts)
        self.schedule = schedule
        self.agents = agents
        self.lan = lan
    }

    public func run() async throws {
        for (index, step) in schedule.steps.enumerated() {
            do {
                let outcome = try await perform(step, index: index)
                record.append("\(index): \(step): \(outcome)")
            } catch {
                record.append("\(index): \(step): failed: \(error)")
                throw error
            }
        }
    }

    // MARK: steps

    private func perform(_ step: PartitionStep, index: Int) async throws -> String {
        let label = "step \(index) (\(step))"
        switch step {
        case let .create(host, folder, name, size):
            let path = "Documents/\(folder)/\(name)"
            return try await write(host, [path]) { agent in
                let seen = try self.version(agent, path)
                let version = try self.put(agent, path, self.content(index: index, size: size))
                self.log.wrote(version, step: label, replacing: seen)
                return seen == nil ? "wrote \(version)" : "replaced \(seen!) with \(version)"
            }
        case let .edit(host, pick, size):
            guard let path = try files(host).pick(pick) else { return "skipped: no file" }
            return try await write(host, [path]) { agent in
                guard let seen = try self.version(agent, path) else { return "skipped: \(path) is gone" }
                var bytes = try Data(contentsOf: URL(fileURLWithPath: agent.path(path)))
                let middle = bytes.count / 2
                bytes.replaceSubrange(middle..<min(bytes.count, middle + size), with: self.content(index: index, size: size))
                let version = try self.put(agent, path, bytes)
                self.log.wrote(version, step: label, replacing: seen)
                return "\(seen) -> \(version)"
            }
        case let .append(host, pick):
            guard let path = try files(host).pick(pick) else { return "skipped: no file" }
            return try await write(host, [path]) { agent in
                guard let seen = try self.version(agent, path) else { return "skipped: \(path) is gone" }
                var bytes = try Data(contentsOf: URL(fileURLWithPath: agent.path(path)))
                bytes.append(self.content(index: index, size: 64))
                let version = try self.put(agent, path, bytes)
                self.log.wrote(version, step: label, replacing: seen)
                return "\(seen) -> \(version)"
            }
        case let .rename(host, pick, folder, name):
            guard let path = try files(host).pick(pick) else { return "skipped: no file" }
            let target = "Documents/\(folder)/\(name)"
            guard target != path else { return "skipped: same name" }
            return try await write(host, [path, target]) { agent in
                guard let seen = try self.version(agent, path) else { return "skipped: \(path) is gone" }
                guard try self.version(agent, target) == nil else { return "skipped: \(target) exists" }
                try self.makeFolder(agent, of: target)
                try FileManager.default.moveItem(atPath: agent.path(path), toPath: agent.path(target))
                self.log.removed(seen)
                self.log.wrote(WrittenVersion(path: target, hash: seen.hash), step: label)
                return "\(seen) -> \(target)"
            }
        case let .delete(host, pick):
            guard let path = try files(host).pick(pick) else { return "skipped: no file" }
            return try await write(host, [path]) { agent in
                guard let seen = try self.version(agent, path) else { return "skipped: \(path) is gone" }
                try FileManager.default.removeItem(atPath: agent.path(path))
                self.log.removed(seen)
                return "deleted \(seen)"
            }
        case let .moveFolder(host, pick, name):
            guard let folder = try folders(host).pick(pick) else { return "skipped: no folder" }
            let target = "Documents/\(name)"
            guard !target.hasPrefix(folder + "/"), target != folder else { return "skipped: into itself" }
            return try await write(host, [folder, target]) { agent in
                guard FileManager.default.fileExists(atPath: agent.path(folder)) else { return "skipped: \(folder) is gone" }
                guard !FileManager.default.fileExists(atPath: agent.path(target)) else { return "skipped: \(target) exists" }
                let moved = try TreeDigest.of(agent.path(folder)).filter { $0.value != "dir" && !$0.value.hasPrefix("link:") }
                try FileManager.default.moveItem(atPath: agent.path(folder), toPath: agent.path(target))
                for (relative, hash) in moved {
                    self.log.removed(WrittenVersion(path: folder + "/" + relative, hash: hash))
                    self.log.wrote(WrittenVersion(path: target + "/" + relative, hash: hash), step: label)
                }
                return "moved \(folder) (\(moved.count) files) to \(target)"
            }
        case let .keyValueSet(host, key):
            guard !killed.contains(host) else { return "skipped: agent down" }
            let value = "h\(host)-step\(index)"
            try await agents[host - 1].withClient { try await $0.set(store: Self.store, [key: .string(value)]) }
            keyValuesWritten[key, default: []].insert(value)
            return "\(key) = \(value)"
        case let .keyValueRemove(host, key):
            guard !killed.contains(host) else { return "skipped: agent down" }
            try await agents[host - 1].withClient { try await $0.remove(store: Self.store, keys: [key]) }
            return "removed \(key)"
        case let .cut(host):
            try lan.host(host).linkDown()
            return "link down"
        case let .restore(host):
            try lan.host(host).linkUp()
            return "link up"
        case let .kill(host):
            agents[host - 1].kill()
            killed.insert(host)
            return "killed"
        case let .restart(host):
            try await agents[host - 1].startAndWait()
            killed.remove(host)
            return "running"
        case let .pause(milliseconds):
            try await Task.sleep(for: .milliseconds(milliseconds))
            return "done"
        }
    }

    /// Runs `body` under a write lease on `paths` while the host's agent runs, else directly.
    private func write(_ host: Int, _ paths: [String], _ body: (AgentProcess) throws -> String) async throws -> String {
        let agent = agents[host - 1]
        if killed.contains(host) { return try body(agent) + " (agent down)" }
        return try await agent.withClient { client in
            let coordinator = FileCoordinator(client: client, container: agent.container)
            return try await coordinator.coordinate(paths.map { CoordinationItem(path: $0, access: "write") }, timeout: .seconds(60)) {
                try body(agent)
            }
        }
    }

    private func content(index: Int, size: Int) -> Data {
        var random = SplitMix64(seed: schedule.seed ^ UInt64(index) &* 0x9E37_79B9)
        var bytes = Data("seed \(schedule.seed) step \(index)\n".utf8)
        while bytes.count < size {
            withUnsafeBytes(of: random.next()) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    private func put(_ agent: AgentProcess, _ path: String, _ bytes: Data) throws -> WrittenVersion {
        try makeFolder(agent, of: path)
        try bytes.write(to: URL(fileURLWithPath: agent.path(path)))
        return WrittenVersion(path: path, hash: ChunkHasher.hash(bytes).hex)
    }

    private func makeFolder(_ agent: AgentProcess, of path: String) throws {
        let folder = URL(fileURLWithPath: agent.path(path)).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The version at `path` on the host's disk, nil when there is no file.
    private func version(_ agent: AgentProcess, _ path: String) throws -> WrittenVersion? {
        var info = stat()
        guard lstat(agent.path(path), &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return WrittenVersion(path: path, hash: try TreeDigest.fileHash(agent.path(path)))
    }

    private func files(_ host: Int) throws -> [String] {
        try entries(host).filter { !$0.isFolder }.map(\.path).sorted()
    }

    private func folders(_ host: Int) throws -> [String] {
        try entries(host).filter(\.isFolder).map(\.path).sorted()
    }

    /// What the host's `Documents/` holds, by path, without reading any file.
    private func entries(_ host: Int) throws -> [(path: String, isFolder: Bool)] {
        let agent = agents[host - 1]
        guard let walker = FileManager.default.enumerator(atPath: agent.path("Documents")) else { return [] }
        var result: [(path: String, isFolder: Bool)] = []
        while let relative = walker.nextObject() as? String {
            let type = walker.fileAttributes?[.type] as? FileAttributeType
            if type == .typeDirectory || type == .typeRegular {
                result.append(("Documents/" + relative, type == .typeDirectory))
            }
        }
        return result
    }

    // MARK: settling

    /// What `agent` holds now: its tree, and its conflict versions mapped back to the paths
    /// the log knows (a version of a path no client wrote is listed under its file name).
    public func settledState(of agent: AgentProcess) throws -> SettledState {
        let paths = Set(log.written.keys.map(\.path))
        let byPrefix = Dictionary(paths.map { (WriteLog.conflictPrefix(of: $0), $0) }) { first, _ in first }
        var conflicts: [String: Set<String>] = [:]
        let folder = agent.root + "/.ubiq/versions"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let prefix = name.split(separator: "-").first.map { String($0) + "-" } ?? name
            conflicts[byPrefix[prefix] ?? "?" + name, default: []].insert(try TreeDigest.fileHash(folder + "/" + name))
        }
        return SettledState(tree: try agent.digest(), conflicts: conflicts)
    }

    /// An agent's key-value store; the test sets only strings.
    public func keyValues(of agent: AgentProcess) async throws -> [String: String] {
        try await agent.withClient { try await $0.values(store: Self.store) }.mapValues { value in
            if case .string(let text) = value { text } else { "\(value)" }
        }
    }
}

extension Array {
    /// The element at `pick` modulo the count; nil when empty.
    fileprivate func pick(_ pick: Int) -> Element? { isEmpty ? nil : self[pick % count] }
}
