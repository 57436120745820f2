extension NamespaceLAN {
    /// The bridge namespace's IPv6 address on a LAN with IPv6: a router that forwards nothing
    /// and answers nothing.
    public static let blackHoleRouter = "fd00:0:0:2::fe"

    /// Makes `prefix` (an IPv6 prefix such as `fd00:0:0:1::/64`) a black hole for `host`:
    /// its packets there go to the bridge namespace, which drops them without a word (a
    /// `blackhole` route there), as a VPN that is down would. A connect there hangs until it times out,
    /// unlike a refused port or a missing route, which fail at once. Needs IPv6 addressing.
    public func blackHole(_ prefix: String, for host: LANHost) throws {
        let present = try CommandRunner.check(tools.ip, ["-n", bridgeNamespace, "-6", "-o", "addr", "show", "dev", "br0"])
        if !present.stdout.contains(Self.blackHoleRouter + "/") {
            try CommandRunner.check(tools.ip, ["-n", bridgeNamespace, "addr", "add", Self.blackHoleRouter + "/64", "dev", "br0", "nodad"])
        }
        // Without its own route the bridge would answer "no route" in ICMPv6, which fails the
        // connect at once whenever it arrives after the SYN has left the connecting socket.
        try CommandRunner.check(tools.ip, ["-n", bridgeNamespace, "-6", "route", "replace", "blackhole", prefix])
        try CommandRunner.check(tools.ip, ["-n", host.namespace, "route", "add", prefix, "via", Self.blackHoleRouter])
        // The router's hardware address is given, not discovered: a neighbour discovery that
        // fails on a busy machine would make the kernel answer "no route to host" at once.
        let link = try CommandRunner.check(tools.ip, ["-n", bridgeNamespace, "-o", "link", "show", "br0"]).stdout
        guard let mac = link.split(separator: " ").drop(while: { $0 != "link/ether" }).dropFirst().first else {
            throw LANError(.commandFailed, "the bridge br0 has no hardware address: \(link)")
        }
        try CommandRunner.check(tools.ip, ["-n", host.namespace, "neigh", "replace", Self.blackHoleRouter, "lladdr", String(mac),
                                           "dev", host.interface, "nud", "permanent"])
    }
}
