/// What one run of one scenario with one tool measured; the JSON keeps these as they are.
struct RunResult: Codable, Sendable {
    var tool: String
    var version: String
    var scenario: Scenario
    var run: Int
    var fileBytes: Int
    /// Seconds from the rename on the writer until each receiver (host 2 first) held the
    /// whole file at its path; nil for one that did not within the timeout.
    var receiverSeconds: [Double?]
    /// Bytes each host's interface sent meanwhile, host 1 (the writer) first.
    var sentBytes: [Int64]
    /// CPU seconds of each host's process meanwhile, host 1 first.
    var cpuSeconds: [Double]
    /// The share of the machine's cores busy meanwhile (everything, the kernel's network included).
    var machineBusy: Double
    /// The share of the machine's cores the tool's processes used meanwhile.
    var toolBusy = 0.0
    /// The share of looks (every 0.5 s while the clock ran) that found a compiler or `swift test` running.
    var compilerShare = 0.0
    /// Receivers (host numbers) whose file did not hold the writer's bytes.
    var wrongContent: [Int] = []
    /// Why the run did not complete, if it did not.
    var failure: String?
    /// Whether that was the timeout (a figure, not a fault of the benchmark).
    var timedOut = false

    /// Until every receiver held the file.
    var allSeconds: Double? { receiverSeconds.contains(where: { $0 == nil }) ? nil : receiverSeconds.compactMap { $0 }.max() }

    /// Until every receiver but the one on the slow link held the file (all of them without one).
    var othersSeconds: Double? {
        let others = zip(scenario.receiverHosts, receiverSeconds).filter { $0.0 != scenario.slowHost }.map(\.1)
        return others.contains(where: { $0 == nil }) ? nil : others.compactMap { $0 }.max()
    }

    /// The slow receiver's time, if the scenario has one.
    var slowSeconds: Double? {
        guard let slow = scenario.slowHost else { return nil }
        return receiverSeconds[slow - 2]
    }

    /// What the writer sent, as a multiple of the file.
    var originShare: Double { sentBytes.isEmpty ? 0 : Double(sentBytes[0]) / Double(fileBytes) }

    var receiversSent: ArraySlice<Int64> { sentBytes.dropFirst() }

    var succeeded: Bool { failure == nil && wrongContent.isEmpty && allSeconds != nil }
}
