// The bandwidth-limit benchmark on a LAN of network namespaces (DESIGN.md §7): two hosts,
// each with its own agent, found over mDNS. A 64 MiB file is sent under an 8 MiB/s send
// limit (the target: 8 s ± 10%); then a second 64 MiB file starts at 2 MiB/s and the limit
// is raised to 16 MiB/s mid-transfer, and a third starts at 16 MiB/s and the limit is
// lowered to 2 MiB/s (the target: the receiving rate follows within a second, both ways).
// Prints the figures and exits 1 where one misses its target; docs/benchmarks.md records
// them with the machine.
//
// Usage: ubiq-bench-lan-limit [--json FILE]   (root, with ip, dbus and avahi-daemon)
import Foundation
import UbiqTestSupport

func fileSize(_ agent: AgentProcess, _ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: agent.path(path))[.size]) as? Int) ?? -1
}

/// Puts a file in place on `agent` at once (written under a `.nosync` name, then renamed).
func place(_ agent: AgentProcess, _ path: String, _ data: Data) throws {
    try agent.write(path + ".nosync", data)
    guard rename(agent.path(path + ".nosync"), agent.path(path)) == 0 else { throw CocoaError(.fileWriteUnknown) }
}

@main
struct LANLimitBenchmark {
    static func main() async throws {
        if try await !run() {
            print("a figure missed its target")
            exit(1)
        }
    }

    /// Whether every figure met its target; the LAN and the agents are gone when it returns.
    nonisolated static func run() async throws -> Bool {
        guard NamespaceLAN.isSupported else {
            FileHandle.standardError.write(Data("cannot run: needs root, network namespaces, dbus and avahi-daemon\n".utf8))
            exit(1)
        }
        let jsonPath = CommandLine.arguments.firstIndex(of: "--json").map { CommandLine.arguments[$0 + 1] }
        let directory = try TempDirectory(prefix: "ubiq-bench-lan")
        let lan = try NamespaceLAN(hosts: 2, prefix: "ubiqbench-lim")
        defer { try? lan.close() }
        var agents: [AgentProcess] = []
        for i in 1...2 {
            let agent = try AgentProcess(name: "h\(i)", in: directory, port: AgentProcess.defaultPort)
            agent.discovery = true
            agent.lanHost = lan.host(i)
            agents.append(agent)
        }
        defer { for agent in agents { agent.stop() } }
        let (a, b) = (agents[0], agents[1])
        try await a.createAccount()
        try await b.join(a)
        for agent in agents { try await agent.startAndWait() }
        try await waitUntil("the hosts to find each other", timeout: .seconds(60)) {
            try await a.status().peers.contains { $0.connected }
        }
        let size = 64 << 20
        let clock = ContinuousClock()

        // 1. 64 MiB under 8 MiB/s.
        _ = try await AgentProcess.cli(["--socket", a.socket, "limit", "--send", "8MiB"])
        let start = clock.now
        try place(a, "Documents/first.bin", SeededBytes.data(size, seed: 1))
        try await waitUntil("the first file", timeout: .seconds(120), every: .milliseconds(10)) { fileSize(b, "Documents/first.bin") == size }
        let limited = (clock.now - start).timeInterval
        print(String(format: "64 MiB under an 8 MiB/s send limit: %.2f s (target 8 s ± 10%%)", limited))

        // 2. 2 MiB/s, raised to 16 MiB/s after 2 s of transfer; 3. 16 MiB/s, lowered to 2 MiB/s after 1 s.
        let raised = try await change(a, b, file: "Documents/second.bin", seed: 2, from: "2MiB", to: "16MiB", after: .seconds(2),
                                      size: size) { $0 > 12 * 1024 * 1024 }
        report("raised from 2 to 16 MiB/s", raised, threshold: "passed 12 MiB/s")
        let lowered = try await change(a, b, file: "Documents/third.bin", seed: 3, from: "16MiB", to: "2MiB", after: .seconds(1),
                                       size: size) { $0 < 3 * 1024 * 1024 }
        report("lowered from 16 to 2 MiB/s", lowered, threshold: "fell below 3 MiB/s")
        if let jsonPath {
            let figures: [String: Double] = ["limited_64mib_seconds": limited, "rate_change_seconds": raised.followed ?? -1,
                                             "rate_lowered_seconds": lowered.followed ?? -1]
            try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys]).write(to: URL(fileURLWithPath: jsonPath))
        }
        return abs(limited - 8) <= 0.8 && (raised.followed ?? 99) <= 1 && (lowered.followed ?? 99) <= 1
    }

    /// How long after a limit change the receiving rate followed, and how long the CLI call took.
    struct Change {
        var followed: Double?
        var took: Double
    }

    static func report(_ what: String, _ change: Change, threshold: String) {
        if let followed = change.followed {
            print(String(format: "limit %@ mid-transfer: the rate %@ %.2f s after the change (the CLI call took %.2f s; target: within 1 s)",
                         what, threshold, followed, change.took))
        } else {
            print("limit \(what) mid-transfer: the rate never \(threshold) within 3 s")
        }
    }

    /// Sends a 64 MiB file under `from`, changes the limit to `to` once `after` of it has
    /// passed, and reads the receiver's byte counter every 50 ms for 3 s: the figure is the
    /// first moment from which a quarter second moved at a rate `followed` accepts.
    static func change(_ a: AgentProcess, _ b: AgentProcess, file: String, seed: UInt64, from: String, to: String, after: Duration,
                       size: Int, followed accepts: (Double) -> Bool) async throws -> Change {
        let clock = ContinuousClock()
        _ = try await AgentProcess.cli(["--socket", a.socket, "limit", "--send", from])
        let before = try await b.status().bytesReceived
        try place(a, file, SeededBytes.data(size, seed: seed))
        try await waitUntil("the transfer of \(file) to start", timeout: .seconds(60), every: .milliseconds(10)) {
            try await b.status().bytesReceived > before + (1 << 20)
        }
        try await Task.sleep(for: after)
        var samples: [(Double, Int64)] = []
        let changed = clock.now
        _ = try await AgentProcess.cli(["--socket", a.socket, "limit", "--send", to])
        let took = (clock.now - changed).timeInterval
        while (clock.now - changed).timeInterval < 3, fileSize(b, file) != size {
            samples.append(((clock.now - changed).timeInterval, try await b.status().bytesReceived))
            try await Task.sleep(for: .milliseconds(50))
        }
        var result = Change(took: took)
        for (index, sample) in samples.enumerated() {
            guard let earlier = samples[..<index].last(where: { sample.0 - $0.0 >= 0.25 }) else { continue }
            if accepts(Double(sample.1 - earlier.1) / (sample.0 - earlier.0)) {
                result.followed = earlier.0
                break
            }
        }
        _ = try await AgentProcess.cli(["--socket", a.socket, "limit", "--send", "none"])
        try await waitUntil("all of \(file)", timeout: .seconds(120), every: .milliseconds(10)) { fileSize(b, file) == size }
        return result
    }
}
