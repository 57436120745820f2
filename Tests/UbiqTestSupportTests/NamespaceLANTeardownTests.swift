import Foundation
import Testing
import UbiqTestSupport

@Suite struct NamespaceLANSupportTests {
    @Test func rootCanAlwaysBuildALAN() {
        // In CI (root) the LAN tests must run rather than skip.
        if geteuid() == 0 { #expect(NamespaceLAN.unsupportedReason == nil) }
    }

    @Test func badArgumentsAreRefusedBeforeAnythingIsCreated() {
        for (hosts, prefix) in [(0, "ubiqlan-bad"), (251, "ubiqlan-bad"), (1, "Bad_Prefix"), (1, "")] {
            let error = #expect(throws: LANError.self) { try NamespaceLAN(hosts: hosts, prefix: prefix) }
            #expect(error?.code == .invalidArgument)
        }
    }
}

@Suite(lanAvailable)
struct NamespaceLANTeardownTests {
    @Test func closeLeavesNothingBehind() throws {
        let lan = try NamespaceLAN(hosts: 3, prefix: "ubiqlan-down")
        let pids = lan.namespaces.flatMap { ProcessTable.pids(inNamespaceAt: "/run/netns/\($0)") }
        #expect(pids.filter { ProcessTable.name(of: $0) == "avahi-daemon" }.count == 3)
        #expect(pids.filter { ProcessTable.name(of: $0) == "dbus-daemon" }.count == 3)
        #expect(try namespacesListed(withPrefix: "ubiqlan-down").count == 4)
        #expect(avahiDaemonsInOwnNamespace().isEmpty)

        try lan.close()
        #expect(try namespacesListed(withPrefix: "ubiqlan-down").isEmpty)
        #expect(pids.filter { ProcessTable.name(of: $0) != nil && ProcessTable.networkNamespace(of: $0) != nil }.isEmpty)
        #expect(avahiDaemonsInOwnNamespace().isEmpty)
        try lan.close()
    }

    @Test func aLANAfterACrashSweepsTheLeftovers() throws {
        let crashed = try NamespaceLAN(hosts: 2, prefix: "ubiqlan-crash")
        crashed.detach()
        let leftovers = crashed.namespaces.flatMap { ProcessTable.pids(inNamespaceAt: "/run/netns/\($0)") }
        #expect(!leftovers.isEmpty)
        let extra = crashed.host(1)

        let lan = try NamespaceLAN(hosts: 2, prefix: "ubiqlan-crash")
        #expect(leftovers.allSatisfy { ProcessTable.networkNamespace(of: $0) == nil })
        #expect(extra.pid != lan.host(1).pid)
        #expect(try lan.host(2).canPing(lan.host(1)))
        try lan.close()
        #expect(try namespacesListed(withPrefix: "ubiqlan-crash").isEmpty)
    }

    @Test func sweepRemovesOnlyItsOwnPrefix() throws {
        let kept = try NamespaceLAN(hosts: 1, prefix: "ubiqlan-keep-x")
        defer { try? kept.close() }
        let gone = try NamespaceLAN(hosts: 1, prefix: "ubiqlan-keep")
        gone.detach()
        try NamespaceLAN.sweep(prefix: "ubiqlan-keep")
        #expect(try namespacesListed(withPrefix: "ubiqlan-keep").isEmpty)
        #expect(try namespacesListed(withPrefix: "ubiqlan-keep-x").count == 2)
        #expect(try kept.host(1).run(["true"]).succeeded)
    }
}
