/// The runs of one tool on one scenario, summed up by their medians.
struct ScenarioSummary {
    var tool: String
    var scenario: Scenario
    var runs: [RunResult]

    /// Every run completed with the right bytes on every receiver.
    var complete: Bool { !runs.isEmpty && runs.allSatisfy(\.succeeded) }

    /// Until every receiver held the file; with a slow host, every receiver but that one.
    var seconds: [Double] { runs.compactMap { scenario.slowHost == nil ? $0.allSeconds : $0.othersSeconds } }
    var slowSeconds: [Double] { runs.compactMap(\.slowSeconds) }
    var medianSeconds: Double? { median(seconds) }
    var medianOriginShare: Double? { median(runs.filter { !$0.sentBytes.isEmpty }.map(\.originShare)) }

    /// Groups results by tool and scenario, in the order they were first measured.
    static func group(_ results: [RunResult]) -> [ScenarioSummary] {
        var summaries: [ScenarioSummary] = []
        for result in results {
            if let index = summaries.firstIndex(where: { $0.tool == result.tool && $0.scenario == result.scenario }) {
                summaries[index].runs.append(result)
            } else {
                summaries.append(ScenarioSummary(tool: result.tool, scenario: result.scenario, runs: [result]))
            }
        }
        return summaries
    }
}

func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
