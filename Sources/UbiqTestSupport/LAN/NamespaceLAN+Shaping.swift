import Foundation

extension NamespaceLAN {
    /// Limits `host`'s link to `megabitsPerSecond` each way, as a workstation's network card
    /// does, so that links and not this machine's CPU are what a transfer waits for: a token
    /// bucket (`tc qdisc tbf`) on the host's interface for what it sends, and another on the
    /// bridge's end of its cable for what it receives. Calling it again changes the rate.
    public func shape(_ host: LANHost, megabitsPerSecond rate: Int) throws {
        guard rate > 0 else { throw LANError(.invalidArgument, "a link's rate is a positive number of Mbit/s, not \(rate)") }
        guard let tc = CommandRunner.find("tc") else {
            throw LANError(.unsupported, "tc not found; run scripts/install-deps.sh (Debian package iproute2)")
        }
        // A bucket of 20 ms of traffic (at least 32 KiB): enough that the timer's granularity
        // does not cut the rate, small enough that a burst is no shortcut.
        let burst = max(32 * 1024, rate * 1_000_000 / 8 / 50)
        for (namespace, interface) in [(host.namespace, host.interface), (bridgeNamespace, "v\(host.index)")] {
            try CommandRunner.check(tc, ["-n", namespace, "qdisc", "replace", "dev", interface, "root", "tbf",
                                         "rate", "\(rate)mbit", "burst", "\(burst)", "latency", "50ms"])
        }
    }

    /// Takes the limit of `shape(_:megabitsPerSecond:)` off `host`'s link.
    public func unshape(_ host: LANHost) throws {
        guard let tc = CommandRunner.find("tc") else { return }
        for (namespace, interface) in [(host.namespace, host.interface), (bridgeNamespace, "v\(host.index)")] {
            _ = try CommandRunner.run(tc, ["-n", namespace, "qdisc", "del", "dev", interface, "root"])
        }
    }
}
