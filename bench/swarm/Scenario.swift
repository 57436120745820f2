/// One shape of the LAN: host 1 writes, hosts 2 … `receivers + 1` receive, every link at
/// `megabits` Mbit/s each way, except the last receiver's at `slowMegabits` where it is set.
struct Scenario: Codable, Hashable, Sendable {
    var receivers: Int
    var megabits: Int
    var slowMegabits: Int?

    var hosts: Int { receivers + 1 }

    /// The host on the slow link, if there is one: the last receiver.
    var slowHost: Int? { slowMegabits == nil ? nil : hosts }

    /// The receiving hosts, counting from 2.
    var receiverHosts: ClosedRange<Int> { 2...hosts }

    /// The rate of host `index`'s link.
    func megabits(of index: Int) -> Int {
        index == slowHost ? (slowMegabits ?? megabits) : megabits
    }

    /// As the table shows it: `7`, or `7, h8 at 20 Mbit/s`.
    var label: String {
        guard let slowHost, let slowMegabits else { return "\(receivers)" }
        return "\(receivers), h\(slowHost) at \(slowMegabits) Mbit/s"
    }

    /// As a sentence names it: `1 receiver`, `7 receivers, h8 at 20 Mbit/s`.
    var description: String {
        let count = receivers == 1 ? "1 receiver" : "\(receivers) receivers"
        guard let slowHost, let slowMegabits else { return count }
        return "\(count), h\(slowHost) at \(slowMegabits) Mbit/s"
    }

    /// The scenarios of one run, in order: every count of receivers, then (when `slow` is set
    /// and the largest count is at least 2) the largest count again with one slow receiver.
    static func all(receivers: [Int], megabits: Int, slow: Int?) -> [Scenario] {
        var scenarios = receivers.map { Scenario(receivers: $0, megabits: megabits) }
        if let slow, let most = receivers.max(), most >= 2 {
            scenarios.append(Scenario(receivers: most, megabits: megabits, slowMegabits: slow))
        }
        return scenarios
    }
}
