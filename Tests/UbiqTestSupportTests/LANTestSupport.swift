import Foundation
import Testing
import UbiqTestSupport

/// Skips a LAN test with the reason (not root, a tool missing, no namespaces) where it cannot run.
let lanAvailable = ConditionTrait.enabled(if: NamespaceLAN.isSupported,
                                          Comment(rawValue: NamespaceLAN.unsupportedReason ?? "namespace LAN supported"))

extension LANHost {
    func canPing(_ other: LANHost) throws -> Bool {
        try run(["ping", "-c1", "-W1", other.address]).succeeded
    }
}

/// Every avahi-daemon running in the test process's own network namespace (must stay empty).
func avahiDaemonsInOwnNamespace() -> [pid_t] {
    let own = ProcessTable.ownNetworkNamespace
    return ProcessTable.pids(named: "avahi-daemon").filter { ProcessTable.networkNamespace(of: $0) == own }
}

func namespaceList() throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    process.arguments = ["PATH=\(path):/usr/sbin:/sbin", "ip", "netns", "list"]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// The names in `ip netns list` that belong to LANs with `prefix`.
func namespacesListed(withPrefix prefix: String) throws -> [String] {
    try namespaceList().split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        .filter { $0 == prefix + "-br" || $0.hasPrefix(prefix + "-h") }
}
