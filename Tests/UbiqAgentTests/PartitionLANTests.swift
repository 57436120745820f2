import Foundation
import Testing
import UbiqTestSupport

/// The randomized partition test (DESIGN.md §8, "nothing lost"): a seeded schedule of
/// writes, renames, deletes, folder moves, key-value writes, link cuts and SIGKILLs on a
/// namespace LAN. Once it heals, every host must hold the same tree, key-value store and
/// conflict versions, and every version a client wrote must be superseded by a causally
/// later write, current, or kept as a conflict version.
///
/// CI runs a short schedule; `scripts/partition-test.sh` runs long ones with
/// `UBIQ_PARTITION_SEED`, `UBIQ_PARTITION_HOSTS` and `UBIQ_PARTITION_STEPS`.
@Suite(.serialized, .enabled(if: NamespaceLAN.isSupported, "needs root, network namespaces, dbus and avahi-daemon"))
struct PartitionLANTests {
    static func setting(_ name: String, default value: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) } ?? value
    }

    @Test func aRandomScheduleOfWritesCutsAndKillsLosesNothing() async throws {
        let schedule = PartitionSchedule(
            seed: Self.setting("UBIQ_PARTITION_SEED", default: 20261123),
            hosts: Int(Self.setting("UBIQ_PARTITION_HOSTS", default: 3)),
            steps: Int(Self.setting("UBIQ_PARTITION_STEPS", default: 60)))
        let cluster = try await LANTests.Cluster(hosts: schedule.hosts) {
            $0.extraArguments = ["--kvstore", PartitionRun.store.rawValue, "--log-level", "debug"]
        }
        try await cluster.start()
        try await cluster.waitConnected(cluster.agents)
        let run = PartitionRun(schedule: schedule, agents: cluster.agents, lan: cluster.lan)
        let clock = ContinuousClock()
        let started = clock.now
        do {
            try await run.run()
            let ran = clock.now - started
            let settled = try await settle(run, timeout: .seconds(Int64(120 + schedule.steps.count / 2)))
            let problems = run.log.violations(in: settled)
            + keyValueProblems(run, try await run.keyValues(of: cluster.agents[0]))
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))\n\(report(run, cluster))")
            print("partition test: seed \(schedule.seed), \(schedule.hosts) hosts, \(schedule.steps.count) steps in \(ran), "
                + "settled after \(clock.now - started - ran); \(run.log.written.count) versions written, "
                + "\(settled.tree.filter { $0.value != "dir" }.count) files, "
                + "\(settled.conflicts.values.map(\.count).reduce(0, +)) conflict versions")
        } catch {
            Issue.record(error, "\(report(run, cluster))")
        }
    }

    /// Waits until every host holds the same tree, conflict versions and key-value store on
    /// two reads in a row, with nothing left in `.ubiq/tmp`; returns that state. On timeout the
    /// error lists where the hosts still differ.
    private func settle(_ run: PartitionRun, timeout: Duration) async throws -> SettledState {
        var previous: (SettledState, [String: String])?
        var settled: SettledState?
        var differences: [String] = []
        do {
            try await waitUntil("every host to hold the same files, conflict versions and key-value store", timeout: timeout,
                                every: .milliseconds(500)) {
                let states = try run.agents.map { try run.settledState(of: $0) }
                var stores: [[String: String]] = []
                for agent in run.agents { stores.append(try await run.keyValues(of: agent)) }
                let temps = try run.agents.map { try FileManager.default.contentsOfDirectory(atPath: $0.root + "/.ubiq/tmp") }
                differences = Self.differences(states, stores, temps)
                guard differences.isEmpty else {
                    previous = nil
                    return false
                }
                defer { previous = (states[0], stores[0]) }
                guard let previous, previous.0 == states[0], previous.1 == stores[0] else { return false }
                settled = states[0]
                return true
            }
        } catch {
            var statuses: [String] = []
            for agent in run.agents {
                let status = try? await agent.status()
                statuses.append("\(agent.name): peers \(status?.peers.filter(\.connected).map(\.name) ?? []), "
                    + "containers \(status.map { "\($0.containers)" } ?? "no answer")")
            }
            let paths = Set(differences.compactMap { $0.split(separator: ":").first?.split(separator: " ").last.map(String.init) })
            for path in paths.sorted() {
                for agent in run.agents {
                    let versions = try? await agent.versions(path)
                    statuses.append("\(agent.name) versions.list \(path): current \(versions.map { "\($0.current.id)" } ?? "none"), "
                        + "conflicts \(versions.map { "\($0.conflicts.map(\.id))" } ?? "none")")
                }
            }
            let logs = run.agents.map { agent in
                "--- \(agent.name), lines about \(paths.sorted()) ---\n" + agent.logText().split(separator: "\n")
                    .filter { line in paths.contains { line.contains("path=\($0) ") || line.contains("path=\"\($0)\"") } }
                    .suffix(60).joined(separator: "\n")
            }
            throw TimedOut(description: "\(error)\nstill different:\n\(differences.joined(separator: "\n"))\n"
                + "\(statuses.joined(separator: "\n"))\n\(logs.joined(separator: "\n"))")
        }
        return settled!
    }

    /// Each path, conflict set, key or temp folder on which the hosts disagree, with what each holds.
    private static func differences(_ states: [SettledState], _ stores: [[String: String]], _ temps: [[String]]) -> [String] {
        func spread(_ what: String, _ values: [String?]) -> String? {
            let texts = values.map { $0 ?? "-" }
            return Set(texts).count == 1 ? nil : "\(what): " + texts.enumerated().map { "h\($0.offset + 1)=\($0.element)" }.joined(separator: " ")
        }
        let paths = Set(states.flatMap(\.tree.keys)).sorted()
        let conflictPaths = Set(states.flatMap(\.conflicts.keys)).sorted()
        let keys = Set(stores.flatMap(\.keys)).sorted()
        return paths.compactMap { path in spread(path, states.map { $0.tree[path].map { String($0.prefix(12)) } }) }
            + conflictPaths.compactMap { path in spread("conflicts of \(path)", states.map { $0.conflicts[path].map { $0.map { $0.prefix(8) }.sorted().joined(separator: ",") } }) }
            + keys.compactMap { key in spread("key \(key)", stores.map { $0[key] }) }
            + (temps.allSatisfy(\.isEmpty) ? [] : ["temp files: \(temps)"])
    }

    /// A key's settled value must be one some client set (or the key is gone).
    private func keyValueProblems(_ run: PartitionRun, _ store: [String: String]) -> [String] {
        store.sorted { $0.key < $1.key }.compactMap { key, value in
            run.keyValuesWritten[key, default: []].contains(value) ? nil : "made up: key \(key) holds \(value), which no client set"
        }
    }

    private func report(_ run: PartitionRun, _ cluster: LANTests.Cluster) -> String {
        "\(run.schedule.listing)\nas run:\n\(run.record.joined(separator: "\n"))\n"
            + cluster.agents.map { "--- \($0.name) ---\n" + $0.logText().suffix(4000) }.joined(separator: "\n")
    }
}
