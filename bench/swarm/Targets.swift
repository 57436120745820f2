import Foundation

/// Issue 25's targets for one tool, judged on the medians of its runs: the writer sends at
/// most 1.5× the file whatever the number of receivers; the most receivers finish within
/// 1.5× the time of one; a host on a slow link costs the others at most 10%.
struct Targets {
    enum Verdict {
        case met(String)
        case missed(String)
        case notMeasured(String)

        var missed: Bool { if case .missed = self { true } else { false } }

        var text: String {
            switch self {
            case .met(let figure): "met (\(figure))"
            case .missed(let figure): "**missed** (\(figure))"
            case .notMeasured(let why): "not measured (\(why))"
            }
        }
    }

    static let originLimit = 1.5
    static let timeLimit = 1.5
    static let slowLimit = 0.10

    var tool: String
    var origin: Verdict
    var time: Verdict
    var slowHost: Verdict

    var all: [(String, Verdict)] {
        [("the writer sends at most \(Self.originLimit)× the file", origin),
         ("the most receivers finish within \(Self.timeLimit)× the time of one", time),
         ("a host on a slow link slows the others by at most \(Int(Self.slowLimit * 100))%", slowHost)]
    }

    var anyMissed: Bool { all.contains { $0.1.missed } }

    init(tool: String, summaries: [ScenarioSummary]) {
        self.tool = tool
        let mine = summaries.filter { $0.tool == tool }
        let even = mine.filter { $0.scenario.slowHost == nil }

        let shares = mine.compactMap { summary in summary.medianOriginShare.map { (summary.scenario, $0) } }
        if let worst = shares.max(by: { $0.1 < $1.1 }) {
            let figure = String(format: "%.2f×", worst.1) + " with \(worst.0.description)"
            origin = worst.1 <= Self.originLimit ? .met(figure) : .missed(figure)
        } else {
            origin = .notMeasured("no run completed")
        }

        let one = even.first { $0.scenario.receivers == 1 }
        let most = even.filter { $0.scenario.receivers > 1 }.max { $0.scenario.receivers < $1.scenario.receivers }
        if let one, let most, let base = one.medianSeconds, let seconds = most.medianSeconds, one.complete, most.complete {
            let ratio = seconds / base
            let figure = String(format: "%d receivers %.1f s, 1 receiver %.1f s: %.2f×", most.scenario.receivers, seconds, base, ratio)
            time = ratio <= Self.timeLimit ? .met(figure) : .missed(figure)
        } else if let most, !most.complete {
            time = .missed("\(most.scenario.receivers) receivers did not all get the file")
        } else {
            time = .notMeasured("needs runs with 1 receiver and with more")
        }

        if let slow = mine.first(where: { $0.scenario.slowHost != nil }),
           let even = even.first(where: { $0.scenario.receivers == slow.scenario.receivers }),
           let base = even.medianSeconds, let seconds = slow.medianSeconds {
            let cost = seconds / base - 1
            let figure = String(format: "the others %.1f s against %.1f s with every link at %d Mbit/s: %+.0f%%",
                                seconds, base, slow.scenario.megabits, cost * 100)
            slowHost = cost <= Self.slowLimit ? .met(figure) : .missed(figure)
        } else {
            slowHost = .notMeasured("needs a slow-host run and one of as many receivers without")
        }
    }
}
