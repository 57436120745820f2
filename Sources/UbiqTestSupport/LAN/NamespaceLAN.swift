import Foundation
import Synchronization

/// Several workstations on one machine for discovery tests: N network namespaces
/// (`PREFIX-h1` … `PREFIX-hN`) joined by veth pairs to a bridge in `PREFIX-br`, on
/// 198.18.0.0/24 (host i is 198.18.0.i) and, where asked, on IPv6 unique-local addresses
/// (`LANAddressing`), each with its own dbus-daemon and avahi-daemon in a private mount
/// namespace. Nothing runs or multicasts in the machine's own namespace.
///
/// Creating a LAN first removes leftovers with the same prefix (from a crashed run), so give
/// each test its own fixed prefix. `close()` (or deinit) kills everything and deletes the
/// namespaces. The initializer blocks until every host's avahi-daemon has claimed its name.
public final class NamespaceLAN: Sendable {
    public static let defaultPrefix = "ubiqlan"
    public static let maximumHosts = 250

    public let prefix: String
    /// The namespace holding the bridge `br0`.
    public let bridgeNamespace: String
    /// Host 1 first.
    public let hosts: [LANHost]
    let tools: LANTools
    private let state: Mutex<State>

    private struct Holder {
        let process: Process
        let errors: Pipe
    }

    private enum State {
        case open([Holder])
        case closed
    }

    public init(hosts count: Int, prefix: String = NamespaceLAN.defaultPrefix, addressing: LANAddressing = .ipv4,
                timeout: Duration = .seconds(60)) throws {
        try Self.validate(prefix: prefix, hosts: count)
        let tools = try Self.tools()
        try Self.sweep(prefix: prefix)
        let bridge = "\(prefix)-br"
        var created: [String] = []
        var holders: [Holder] = []
        do {
            try Self.createBridge(bridge, ip: tools.ip, created: &created)
            var hosts: [LANHost] = []
            for index in 1...count {
                let namespace = "\(prefix)-h\(index)"
                try Self.createHost(namespace, index: index, bridge: bridge, addressing: addressing, tools: tools, created: &created)
                let holder = try Self.startHolder(namespace: namespace, hostName: "h\(index)", interface: "e\(index)",
                                                  ipv6: addressing.ipv6, tools: tools)
                holders.append(holder)
                let ipv6 = addressing.ipv6Address(index)
                hosts.append(LANHost(index: index, namespace: namespace, interface: "e\(index)",
                                     address: addressing.ipv4Address(index) ?? ipv6!, ipv6Address: ipv6,
                                     hostName: "h\(index)", pid: holder.process.processIdentifier, tools: tools))
            }
            try Self.waitUntilReady(hosts, holders, timeout: timeout)
            self.hosts = hosts
        } catch {
            try? NamespaceTeardown.destroy(created.reversed(), ip: tools.ip)
            throw error
        }
        self.prefix = prefix
        self.bridgeNamespace = bridge
        self.tools = tools
        self.state = Mutex(.open(holders))
    }

    deinit { try? close() }

    /// Builds the LAN on a thread of its own, so the second or so it takes to come up does
    /// not hold one of the few threads Swift concurrency runs tests on.
    public static func start(hosts count: Int, prefix: String = NamespaceLAN.defaultPrefix, addressing: LANAddressing = .ipv4,
                             timeout: Duration = .seconds(60)) async throws -> NamespaceLAN {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try NamespaceLAN(hosts: count, prefix: prefix, addressing: addressing, timeout: timeout)
                })
            }.start()
        }
    }

    /// Host `index`, counting from 1.
    public func host(_ index: Int) -> LANHost {
        precondition(hosts.indices.contains(index - 1), "host \(index) is not in a LAN of \(hosts.count) hosts (they count from 1)")
        return hosts[index - 1]
    }

    /// Every namespace of this LAN, hosts first.
    public var namespaces: [String] { hosts.map(\.namespace) + [bridgeNamespace] }

    public var isOpen: Bool { state.withLock { if case .open = $0 { true } else { false } } }

    /// Kills every process in the LAN's namespaces (daemons and programs started in hosts),
    /// deletes the namespaces and checks that they are gone. Safe to call more than once.
    public func close() throws {
        let holders: [Holder] = state.withLock { state in
            guard case .open(let holders) = state else { return [] }
            state = .closed
            return holders
        }
        guard !holders.isEmpty else { return }
        try NamespaceTeardown.destroy(namespaces, ip: tools.ip)
        for holder in holders { holder.process.waitUntilExit() }
        let left = namespaces.filter(NamespaceTeardown.exists)
        guard left.isEmpty else {
            throw LANError(.teardownFailed, "namespaces \(left.joined(separator: ", ")) are still there; run scripts/lan.sh down \(prefix)")
        }
    }

    /// Forgets the LAN without tearing it down, as a crash would: it stays up for poking at
    /// by hand (`scripts/lan.sh exec PREFIX I …`) until `sweep(prefix:)` or the next LAN with
    /// this prefix removes it.
    public func detach() {
        state.withLock { $0 = .closed }
    }

    /// Removes every namespace (and what runs in it) left by an earlier LAN with `prefix`.
    public static func sweep(prefix: String) throws {
        let tools = try tools()
        try NamespaceTeardown.destroy(NamespaceTeardown.namespaces(withPrefix: prefix), ip: tools.ip)
    }

    // MARK: building

    private static func validate(prefix: String, hosts: Int) throws {
        guard (1...maximumHosts).contains(hosts) else {
            throw LANError(.invalidArgument, "a LAN has 1 to \(maximumHosts) hosts, not \(hosts)")
        }
        let allowed = prefix.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        guard (1...40).contains(prefix.utf8.count), allowed, prefix.first?.isLetter == true else {
            throw LANError(.invalidArgument, "prefix '\(prefix)' must be 1 to 40 of a-z, 0-9 and '-', starting with a letter")
        }
    }

    private static func createBridge(_ bridge: String, ip: String, created: inout [String]) throws {
        try CommandRunner.check(ip, ["netns", "add", bridge])
        created.append(bridge)
        try CommandRunner.check(ip, ["-n", bridge, "link", "set", "lo", "up"])
        try CommandRunner.check(ip, ["-n", bridge, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0"])
        try CommandRunner.check(ip, ["-n", bridge, "link", "set", "br0", "up"])
    }

    private static func createHost(_ namespace: String, index: Int, bridge: String, addressing: LANAddressing,
                                   tools: LANTools, created: inout [String]) throws {
        let ip = tools.ip
        try CommandRunner.check(ip, ["netns", "add", namespace])
        created.append(namespace)
        if addressing.ipv6 {
            // Without duplicate address detection, IPv6 addresses (link-local ones too, which
            // mDNS over IPv6 speaks from) work as soon as the link is up, not a second later.
            try CommandRunner.check(ip, ["netns", "exec", namespace, tools.sh, "-c",
                                         "echo 0 > /proc/sys/net/ipv6/conf/default/accept_dad"])
        }
        try CommandRunner.check(ip, ["-n", namespace, "link", "set", "lo", "up"])
        // Both ends are created inside namespaces: no interface ever appears in the machine's own.
        try CommandRunner.check(ip, ["-n", bridge, "link", "add", "v\(index)", "type", "veth", "peer", "name", "e\(index)", "netns", namespace])
        try CommandRunner.check(ip, ["-n", bridge, "link", "set", "v\(index)", "master", "br0", "up"])
        if let v4 = addressing.ipv4Address(index) {
            try CommandRunner.check(ip, ["-n", namespace, "addr", "add", "\(v4)/24", "dev", "e\(index)"])
        }
        if let v6 = addressing.ipv6Address(index) {
            try CommandRunner.check(ip, ["-n", namespace, "addr", "add", "\(v6)/64", "dev", "e\(index)", "nodad"])
        }
        try CommandRunner.check(ip, ["-n", namespace, "link", "set", "e\(index)", "multicast", "on", "up"])
    }

    /// `ip netns exec` and `unshare` exec in place, so the process started is `unshare`, which
    /// sits in the host's network and new mount namespace while its child runs `HostDaemons.script`
    /// as PID 1 of a new PID namespace (`--kill-child`: the host dies with its holder).
    private static func startHolder(namespace: String, hostName: String, interface: String, ipv6: Bool, tools: LANTools) throws -> Holder {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tools.ip)
        process.arguments = ["netns", "exec", namespace, tools.unshare, "--mount", "--propagation", "private",
                             "--pid", "--fork", "--kill-child", "sh", "-c", HostDaemons.script, "ubiqlan-host", hostName, interface,
                             ipv6 ? "yes" : "no"]
        process.environment = CommandRunner.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.runWithDefaultSignalMask()
        } catch {
            throw LANError(.commandFailed, "cannot start the holder of \(namespace): \(error)")
        }
        return Holder(process: process, errors: errors)
    }

    private static func waitUntilReady(_ hosts: [LANHost], _ holders: [Holder], timeout: Duration) throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pending = Array(hosts.indices)
        while !pending.isEmpty {
            for i in pending {
                if !holders[i].process.isRunning {
                    holders[i].process.waitUntilExit()
                    let errors = String(decoding: holders[i].errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    throw LANError(.hostDidNotStart, "the holder of \(hosts[i].namespace) exited (\(holders[i].process.terminationStatus)): "
                        + errors.trimmingCharacters(in: .whitespacesAndNewlines) + "\n" + hosts[i].avahiLog())
                }
            }
            pending.removeAll { hosts[$0].avahiLog().contains(HostDaemons.readyLine) }
            if pending.isEmpty { return }
            guard clock.now < deadline else {
                let host = hosts[pending[0]]
                throw LANError(.hostDidNotStart, "avahi-daemon in \(host.namespace) did not finish starting within \(timeout); its log:\n"
                    + host.avahiLog())
            }
            usleep(5_000)
        }
    }
}
