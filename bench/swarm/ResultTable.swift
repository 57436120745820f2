import Foundation

/// The Markdown the benchmark prints: one row per tool and scenario (medians of the runs,
/// with the range where there were several), then each tool's targets.
enum ResultTable {
    static let mebibyte = 1024.0 * 1024.0

    static func markdown(_ results: [RunResult], tools: [String]) -> String {
        let summaries = ScenarioSummary.group(results)
        var lines = [
            "| tool | receivers | until all hold it | writer sent | receivers sent, max / min | CPU: writer / a receiver (mean) | cores busy: the tool / the machine |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for summary in summaries {
            lines.append("| \(summary.tool) | \(summary.scenario.label) | \(time(summary)) | \(originSent(summary)) | "
                + "\(receiversSent(summary)) | \(cpu(summary)) | \(busy(summary)) |")
        }
        lines.append("")
        for tool in tools {
            let targets = Targets(tool: tool, summaries: summaries)
            lines.append("\(tool):")
            for (what, verdict) in targets.all { lines.append("- \(what): \(verdict.text)") }
        }
        let shared = results.filter { $0.compilerShare > 0 }
        if !shared.isEmpty {
            lines.append("")
            lines.append("A compiler or `swift test` ran on the machine during part of these runs: " + shared.map {
                "\($0.tool), \($0.scenario.description)" + (runsOf($0, in: results) > 1 ? " (run \($0.run))" : "")
                    + String(format: ", %.0f%% of the time", $0.compilerShare * 100)
            }.joined(separator: "; ") + ".")
        }
        let failures = results.filter { !$0.succeeded }
        if !failures.isEmpty {
            lines.append("")
            for result in failures {
                var why = result.failure ?? "incomplete"
                if !result.wrongContent.isEmpty { why = "wrong bytes on " + result.wrongContent.map { "h\($0)" }.joined(separator: ", ") }
                lines.append("- \(result.tool), \(result.scenario.description), run \(result.run): \(why)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `74.9 s`, with `(min–max)` over several runs; with a slow host, the others' time and
    /// the slow one's; `—` with the count of receivers that never held it.
    static func time(_ summary: ScenarioSummary) -> String {
        guard let seconds = summary.medianSeconds else {
            let held = summary.runs.map { $0.receiverSeconds.compactMap { $0 }.count }.max() ?? 0
            return "— (\(held) of \(summary.scenario.receivers) held it)"
        }
        var text = String(format: "%.1f s", seconds) + range(summary.seconds)
        if let slowHost = summary.scenario.slowHost {
            let slow = median(summary.slowSeconds).map { String(format: "%.1f s", $0) } ?? "never"
            text = "the others \(text); h\(slowHost) \(slow)"
        }
        if summary.seconds.count < summary.runs.count { text += " (\(summary.runs.count - summary.seconds.count) runs incomplete)" }
        return text
    }

    static func originSent(_ summary: ScenarioSummary) -> String {
        let runs = summary.runs.filter { !$0.sentBytes.isEmpty }
        guard let share = median(runs.map(\.originShare)), let bytes = median(runs.map { Double($0.sentBytes[0]) }) else { return "—" }
        return String(format: "%.0f MiB, %.2f× the file", bytes / mebibyte, share)
    }

    static func receiversSent(_ summary: ScenarioSummary) -> String {
        let runs = summary.runs.filter { $0.sentBytes.count > 1 }
        guard let most = median(runs.map { Double($0.receiversSent.max()!) }),
              let least = median(runs.map { Double($0.receiversSent.min()!) }) else { return "—" }
        return String(format: "%.0f / %.0f MiB", most / mebibyte, least / mebibyte)
    }

    static func cpu(_ summary: ScenarioSummary) -> String {
        let runs = summary.runs.filter { $0.cpuSeconds.count > 1 }
        guard let writer = median(runs.map { $0.cpuSeconds[0] }),
              let receiver = median(runs.map { $0.cpuSeconds.dropFirst().reduce(0, +) / Double($0.cpuSeconds.count - 1) }) else { return "—" }
        return String(format: "%.1f / %.1f s", writer, receiver)
    }

    /// The share of the cores the tool's processes used, and the share busy with anything
    /// (the kernel's network, the benchmark, and whatever else ran on the machine included).
    static func busy(_ summary: ScenarioSummary) -> String {
        let runs = summary.runs.filter { $0.cpuSeconds.count > 1 }
        guard let tool = median(runs.map(\.toolBusy)), let machine = median(runs.map(\.machineBusy)) else { return "—" }
        return String(format: "%.0f%% / %.0f%%", tool * 100, machine * 100)
    }

    private static func runsOf(_ result: RunResult, in results: [RunResult]) -> Int {
        results.filter { $0.tool == result.tool && $0.scenario == result.scenario }.count
    }

    private static func range(_ values: [Double]) -> String {
        guard values.count > 1, let low = values.min(), let high = values.max() else { return "" }
        return String(format: " (%.1f–%.1f)", low, high)
    }
}
