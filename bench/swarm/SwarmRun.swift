import Foundation
import UbiqTestSupport

/// One measurement: a fresh LAN shaped as `scenario` says, the tool started on every host,
/// the file staged beside the writer's folder, then renamed into it; the clock runs from the
/// rename until each receiver holds a file of the right size at the same path (the tools
/// assemble it under another name and rename it into place, so a full-size file is a whole
/// one; its bytes are compared with the writer's afterwards, untimed). The LAN and the
/// folders are gone when it returns, or when the benchmark is interrupted.
struct SwarmRun {
    static let lanPrefix = "ubiqbench-swarm"
    static let relativePath = "Documents/swarm.bin"

    var scenario: Scenario
    var run: Int
    var payload: Payload
    var timeout: Duration
    /// Keep the folders (logs, homes) for a look afterwards.
    var keep = false

    func measure(_ tool: any SwarmTool) async throws -> RunResult {
        let directory = try TempDirectory(prefix: "ubiq-bench-swarm")
        let lan = try await NamespaceLAN.start(hosts: scenario.hosts, prefix: Self.lanPrefix)
        let keep = keep
        let cleanup = InterruptCleanup.shared.add {
            try? lan.close()
            if !keep { directory.close() }
        }
        defer {
            tool.stop()
            try? lan.close()
            if keep {
                directory.keep()
                print("kept \(directory.path)")
            } else {
                directory.close()
            }
            InterruptCleanup.shared.remove(cleanup)
        }
        for host in lan.hosts {
            try lan.shape(host, megabitsPerSecond: scenario.megabits(of: host.index))
        }
        try await tool.start(on: lan, in: directory)
        let staged = directory.appending("incoming.bin")
        try payload.stage(at: staged)
        try await Task.sleep(for: .seconds(1))

        var result = RunResult(tool: tool.name, version: tool.version, scenario: scenario, run: run, fileBytes: payload.count,
                               receiverSeconds: Array(repeating: nil, count: scenario.receivers), sentBytes: [], cpuSeconds: [],
                               machineBusy: 0)
        let before = try HostCounters.read(lan, program: tool.program)
        let clock = ContinuousClock()
        let start = clock.now
        let target = tool.folder(1) + "/" + Self.relativePath
        guard rename(staged, target) == 0 else { throw BenchmarkError("rename to \(target): \(String(cString: strerror(errno)))") }
        do {
            try await tool.placed(Self.relativePath)
            try await waitForReceivers(tool, start: start, into: &result)
        } catch let error as ReceiversTimedOut {
            result.failure = error.description
            result.timedOut = true
        } catch {
            result.failure = "\(error)"
        }
        let after = try HostCounters.read(lan, program: tool.program)
        result.sentBytes = zip(after.sent, before.sent).map { $0 - $1 }
        result.cpuSeconds = zip(after.cpuSeconds, before.cpuSeconds).map { $0 - $1 }
        result.machineBusy = after.machine.busyShare(since: before.machine)
        let elapsed = (clock.now - start).timeInterval * Double(ProcessInfo.processInfo.activeProcessorCount)
        result.toolBusy = elapsed > 0 ? result.cpuSeconds.reduce(0, +) / elapsed : 0
        result.wrongContent = scenario.receiverHosts.filter { host in
            result.receiverSeconds[host - 2] != nil && !payload.matches(fileAt: tool.folder(host) + "/" + Self.relativePath)
        }
        return result
    }

    /// Looks at every receiver's file every 20 ms until all hold it or the timeout passes; the
    /// time recorded for one is the start of the look that found its file whole.
    private func waitForReceivers(_ tool: any SwarmTool, start: ContinuousClock.Instant, into result: inout RunResult) async throws {
        let clock = ContinuousClock()
        let paths = scenario.receiverHosts.map { tool.folder($0) + "/" + Self.relativePath }
        var looks = 0, compiling = 0
        defer { result.compilerShare = looks > 0 ? Double(compiling) / Double(looks) : 0 }
        var lastLook = clock.now - .seconds(1)
        while result.receiverSeconds.contains(where: { $0 == nil }) {
            let now = clock.now
            let elapsed = now - start
            guard elapsed < timeout else {
                let missing = result.receiverSeconds.indices.filter { result.receiverSeconds[$0] == nil }.map { "h\($0 + 2)" }
                throw ReceiversTimedOut(description: "\(missing.joined(separator: ", ")) did not hold the file after \(timeout)")
            }
            if now - lastLook >= .milliseconds(500) {
                lastLook = now
                looks += 1
                if buildOrTestRunning() { compiling += 1 }
            }
            for (index, path) in paths.enumerated() where result.receiverSeconds[index] == nil && fileSize(path) == payload.count {
                result.receiverSeconds[index] = elapsed.timeInterval
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Some receivers did not hold the file within the run's timeout.
struct ReceiversTimedOut: Error, CustomStringConvertible {
    let description: String
}
