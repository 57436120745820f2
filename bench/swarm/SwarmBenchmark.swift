import ArgumentParser
import Foundation
import UbiqTestSupport

/// Issue 25's benchmark: one file from one writer to 1, 3 and 7 receivers on a LAN of
/// network namespaces whose links are shaped to 200 Mbit/s each way (so that links, not this
/// machine's CPU, should be the limit), with ubiq and with Syncthing, each instance given the
/// static addresses of all the others. It prints how long until every receiver held the
/// file and the bytes each host sent, and judges the targets. Runs as root; it removes its
/// namespaces on every exit, an interruption included.
@main
struct SwarmBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ubiq-bench-swarm",
        abstract: "One file to 1, 3 and 7 receivers on a shaped namespace LAN, ubiq beside Syncthing (issue 25).",
        discussion: """
            Needs root, ip, tc, nsenter, dbus-daemon and avahi-daemon (the LAN's hosts run their own), \
            and syncthing for its side. Exits 0 when every run completed, even when ubiq misses a target, \
            unless --check is given; 1 for a missed target under --check; 2 when a run failed.
            """)

    @Option(help: "Counts of receivers, comma-separated.")
    var receivers = "1,3,7"
    @Option(name: .customLong("size-mib"), help: "The file's size, MiB.")
    var sizeMiB = 256
    @Option(help: "The tools, comma-separated: ubiq, syncthing.")
    var tools = "ubiq,syncthing"
    @Option(help: "Every host's link, Mbit/s each way.")
    var mbit = 200
    @Option(name: .customLong("slow-mbit"),
            help: "The last receiver's link in one more run of the most receivers, Mbit/s; 0 for no such run.")
    var slowMbit = 20
    @Option(help: "Runs of each scenario with each tool.")
    var runs = 1
    @Option(help: "Seconds a run may take before its missing receivers are given up.")
    var timeout = 900
    @Option(help: "Write every run's figures to this file as JSON.")
    var json: String?
    @Option(help: "The folder holding ubiqd and ubiq (default: UBIQ_BIN_DIR, else the folder of this program).")
    var bin: String?
    @Option(help: "Print the table of a JSON file written by --json, without measuring.")
    var render: String?
    @Flag(help: "Exit 1 when ubiq misses a target.")
    var check = false
    @Flag(help: "Keep each run's folders (homes, logs) and print where they are.")
    var keep = false

    var receiverCounts: [Int] { receivers.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
    var toolNames: [String] { tools.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }

    func validate() throws {
        guard !receiverCounts.isEmpty, receiverCounts.allSatisfy({ (1...7).contains($0) }) else {
            throw ValidationError("--receivers takes counts from 1 to 7 (a LAN of up to 8 hosts)")
        }
        guard !toolNames.isEmpty, toolNames.allSatisfy({ ["ubiq", "syncthing"].contains($0) }) else {
            throw ValidationError("--tools takes ubiq, syncthing or both")
        }
        guard sizeMiB > 0, mbit > 0, slowMbit >= 0, runs > 0, timeout > 0 else {
            throw ValidationError("sizes, rates, runs and the timeout are positive")
        }
    }

    func run() async throws {
        if let render {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let report = try decoder.decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: render)))
            let tools = ["ubiq", "Syncthing"].filter { name in report.results.contains { $0.tool == name } }
            print(header(report, tools: tools) + "\n")
            print(ResultTable.markdown(report.results, tools: tools))
            try exitStatus(report.results)
            return
        }
        if let reason = NamespaceLAN.unsupportedReason { throw BenchmarkError("cannot build the LAN: \(reason)") }
        if let bin { setenv("UBIQ_BIN_DIR", bin, 1) }
        if toolNames.contains("ubiq"), access(AgentProcess.binDirectory + "/ubiqd", X_OK) != 0 {
            throw BenchmarkError("no ubiqd in \(AgentProcess.binDirectory); build it (swift build -c release) or give --bin")
        }
        if toolNames.contains("syncthing"), SyncthingInstance.executable == nil {
            throw BenchmarkError("syncthing not found; apt-get install -y syncthing, or --tools ubiq")
        }
        InterruptCleanup.shared.install()
        let machine = Machine.here()
        let scenarios = Scenario.all(receivers: receiverCounts, megabits: mbit, slow: slowMbit > 0 ? slowMbit : nil)
        let payload = Payload(bytes: sizeMiB << 20, seed: 25)
        let started = Date()
        log("\(machine.description); a \(sizeMiB) MiB file, links at \(mbit) Mbit/s, \(runs) run(s)")

        var results: [RunResult] = []
        for run in 1...runs {
            for scenario in scenarios {
                // The order of the tools alternates between runs, so neither always goes first.
                let order = run % 2 == 1 ? toolNames : toolNames.reversed()
                for name in order {
                    let result = await measure(name, scenario: scenario, run: run, payload: payload)
                    log(summary(result))
                    results.append(result)
                }
            }
        }

        let names = toolNames.map { $0 == "ubiq" ? "ubiq" : "Syncthing" }
        let report = Report(date: started, machine: machine, sizeMiB: sizeMiB, megabits: mbit, runs: runs, results: results)
        print(header(report, tools: names) + "\n")
        print(ResultTable.markdown(results, tools: names))
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
        }
        try exitStatus(results)
    }

    /// 2 when a run failed (not for a timeout: that is a figure); 1 under `--check` when ubiq
    /// missed a target; else the command ends normally.
    private func exitStatus(_ results: [RunResult]) throws {
        if results.contains(where: { !$0.succeeded && !$0.timedOut }) { throw ExitCode(2) }
        if check, Targets(tool: "ubiq", summaries: ScenarioSummary.group(results)).anyMissed { throw ExitCode(1) }
    }

    /// One run of one tool; a failure becomes part of the result.
    private func measure(_ name: String, scenario: Scenario, run: Int, payload: Payload) async -> RunResult {
        let tool: any SwarmTool = name == "ubiq" ? UbiqSwarm() : SyncthingSwarm()
        log("run \(run): \(tool.name), \(scenario.description) …")
        let measurement = SwarmRun(scenario: scenario, run: run, payload: payload, timeout: .seconds(timeout), keep: keep)
        do {
            return try await measurement.measure(tool)
        } catch {
            return RunResult(tool: tool.name, version: tool.version, scenario: scenario, run: run, fileBytes: payload.count,
                             receiverSeconds: Array(repeating: nil, count: scenario.receivers), sentBytes: [], cpuSeconds: [],
                             machineBusy: 0, failure: "\(error)")
        }
    }

    private func header(_ report: Report, tools: [String]) -> String {
        let versions = Dictionary(report.results.map { ($0.tool, $0.version) }, uniquingKeysWith: { $1 })
        return "Measured \(ISO8601DateFormatter().string(from: report.date)) on \(report.machine.description); "
            + tools.map { "\($0) \(versions[$0] ?? "?")" }.joined(separator: ", ")
            + "; a \(report.sizeMiB) MiB file, every link at \(report.megabits) Mbit/s each way, \(report.runs) run(s)."
    }

    private func summary(_ result: RunResult) -> String {
        let times = zip(result.scenario.receiverHosts, result.receiverSeconds)
            .map { "h\($0.0) " + ($0.1.map { String(format: "%.1f s", $0) } ?? "—") }.joined(separator: ", ")
        let sent = result.sentBytes.enumerated()
            .map { "h\($0.offset + 1) " + String(format: "%.0f", Double($0.element) / ResultTable.mebibyte) }.joined(separator: ", ")
        return "  held it: \(times)\n  sent (MiB): \(sent)" + (result.failure.map { "\n  failed: \($0)" } ?? "")
    }

    private func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// What `--json` writes.
struct Report: Codable {
    var date: Date
    var machine: Machine
    var sizeMiB: Int
    var megabits: Int
    var runs: Int
    var results: [RunResult]
}
