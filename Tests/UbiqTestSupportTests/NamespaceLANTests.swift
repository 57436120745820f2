import Foundation
import Testing
import UbiqTestSupport

@Suite(lanAvailable)
struct NamespaceLANTests {
    @Test func threeHostsPingEachOther() throws {
        let lan = try NamespaceLAN(hosts: 3, prefix: "ubiqlan-ping")
        defer { try? lan.close() }
        #expect(lan.hosts.map(\.address) == ["198.18.0.1", "198.18.0.2", "198.18.0.3"])
        for a in lan.hosts {
            for b in lan.hosts where b.index != a.index {
                #expect(try a.canPing(b), "\(a.hostName) cannot ping \(b.address)")
            }
        }
        let addresses = try lan.host(2).output(["ip", "-4", "-o", "addr", "show", "dev", "e2"])
        #expect(addresses.contains("198.18.0.2/24"))
    }

    @Test func serviceOnHostOneIsSeenOnTheOthers() async throws {
        let lan = try await NamespaceLAN.start(hosts: 3, prefix: "ubiqlan-mdns")
        defer { try? lan.close() }
        let publisher = try lan.host(1).spawn(["avahi-publish", "-s", "ubiqtest-one", "_ubiqtest._tcp", "1234"])
        defer { publisher.terminate(); publisher.waitUntilExit() }
        for host in [lan.host(2), lan.host(3)] {
            let expected = "=;\(host.interface);IPv4;ubiqtest-one;_ubiqtest._tcp;local;h1.local;198.18.0.1;1234;"
            try await waitUntil("\(host.hostName) to resolve the service of h1", timeout: .seconds(15)) {
                #expect(publisher.isRunning, "avahi-publish exited: \(lan.host(1).avahiLog())")
                return try host.output(["avahi-browse", "-rtp", "_ubiqtest._tcp"], timeout: .seconds(10))
                    .split(separator: "\n").contains { $0 == expected }
            }
        }
    }

    @Test func airplaneModeCutsAHostOffAndBack() async throws {
        let lan = try NamespaceLAN(hosts: 2, prefix: "ubiqlan-link")
        defer { try? lan.close() }
        let one = lan.host(1), two = lan.host(2)
        #expect(try two.canPing(one))
        try one.linkDown()
        #expect(try !two.canPing(one))
        try one.linkUp()
        try await waitUntil("h2 to reach h1 again", timeout: .seconds(10)) { try two.canPing(one) }
    }

    @Test func aSpawnedProgramIsTheProcessAndRunsInsideTheHost() async throws {
        let lan = try NamespaceLAN(hosts: 1, prefix: "ubiqlan-spawn")
        defer { try? lan.close() }
        let host = lan.host(1)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("ubiqlan-spawn-\(getpid()).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let program = try host.spawn(["sh", "-c", "echo \"$GREETING\" $(ls /run/ubiqlan | head -1); exec sleep 60"],
                                     environment: ["GREETING": "hello"], log: log)
        let pid = program.processIdentifier
        // The pid is nsenter's until it has entered the host and exec'd the command.
        try await waitUntil("the spawned shell to exec sleep", timeout: .seconds(10)) { ProcessTable.name(of: pid) == "sleep" }
        #expect(ProcessTable.networkNamespace(of: pid) == ProcessTable.namespace(at: "/run/netns/\(host.namespace)"))
        #expect(ProcessTable.networkNamespace(of: pid) != ProcessTable.ownNetworkNamespace)
        program.terminate()
        program.waitUntilExit()
        #expect(program.terminationReason == .uncaughtSignal)
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "hello avahi-daemon.conf\n")
    }

    @Test func runReportsStatusAndBothOutputs() throws {
        let lan = try NamespaceLAN(hosts: 1, prefix: "ubiqlan-run")
        defer { try? lan.close() }
        let result = try lan.host(1).run(["sh", "-c", "echo out; echo err >&2; exit 3"])
        #expect(result.status == 3 && result.stdout == "out\n" && result.stderr == "err\n")
        #expect(throws: LANError.self) { try lan.host(1).run(["sleep", "5"], timeout: .milliseconds(200)) }
    }
}

@Suite(lanAvailable)
struct NamespaceLANIPv6Tests {
    @Test func hostsReachEachOtherOnUniqueLocalAddressesAndOneHasNoIPv4() throws {
        let lan = try NamespaceLAN(hosts: 2, prefix: "ubiqlan-ipv6", addressing: .dualStack(ipv6Only: [2]))
        defer { try? lan.close() }
        #expect(lan.hosts.map(\.ipv6Address) == ["fd00:0:0:2::1", "fd00:0:0:2::2"])
        #expect(lan.hosts.map(\.address) == ["198.18.0.1", "fd00:0:0:2::2"])
        #expect(try lan.host(2).output(["ip", "-4", "-o", "addr", "show", "scope", "global"]).isEmpty)
        #expect(try lan.host(1).run(["ping", "-c1", "-W1", "fd00:0:0:2::2"]).succeeded)
        #expect(try lan.host(2).run(["ping", "-c1", "-W1", "fd00:0:0:2::1"]).succeeded)
        #expect(try !lan.host(2).run(["ping", "-c1", "-W1", "198.18.0.1"]).succeeded)
    }

    @Test func aBlackHoledPrefixSwallowsConnections() throws {
        let lan = try NamespaceLAN(hosts: 2, prefix: "ubiqlan-hole", addressing: .dualStack())
        defer { try? lan.close() }
        try lan.host(2).output(["ip", "addr", "add", "fd00:0:0:1::2/128", "dev", "e2", "nodad"])
        try lan.blackHole("fd00:0:0:1::/64", for: lan.host(1))
        func connect(_ address: String) throws -> String {
            let probe = """
                import socket
                try:
                    socket.create_connection(("\(address)", 9), timeout=1)
                except socket.timeout:
                    print("timed out")
                except OSError as error:
                    print(error.strerror)
                """
            return try lan.host(1).output(["python3", "-c", probe]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func unreachableNotices() throws -> String? {
            try lan.host(1).output(["cat", "/proc/net/snmp6"]).split(separator: "\n")
                .first { $0.hasPrefix("Icmp6InDestUnreachs") }?.split(separator: " ").last.map(String.init)
        }
        let before = try unreachableNotices()
        #expect(try connect("fd00:0:0:1::2") == "timed out")
        // Silence, not a late "no route" that would fail the connect on a busy machine.
        #expect(try unreachableNotices() == before)
        #expect(try connect("fd00:0:0:2::2") == "Connection refused")
    }
}
