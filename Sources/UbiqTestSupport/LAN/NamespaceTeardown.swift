import Foundation

/// Removes namespaces by name with everything running in them, in an order that lets the
/// kernel reap each host's daemons: first the PID-namespace inits (which takes their
/// daemons along), then whatever is left (programs entered with nsenter, holders).
enum NamespaceTeardown {
    static let netnsFolder = "/run/netns"

    static func exists(_ namespace: String) -> Bool {
        FileManager.default.fileExists(atPath: "\(netnsFolder)/\(namespace)")
    }

    /// Names of namespaces that belong to a LAN with `prefix`: `PREFIX-br` and `PREFIX-hN`.
    static func namespaces(withPrefix prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: netnsFolder)) ?? []
        return names.filter { name in
            guard name.hasPrefix(prefix + "-") else { return false }
            let rest = name.dropFirst(prefix.count + 1)
            return rest == "br" || (rest.first == "h" && rest.count > 1 && rest.dropFirst().allSatisfy(\.isNumber))
        }
        .sorted { ($0.hasSuffix("-br") ? 1 : 0, $0) < ($1.hasSuffix("-br") ? 1 : 0, $1) }
    }

    /// Kills every process in each namespace, then deletes it; hosts before the bridge.
    static func destroy(_ namespaces: [String], ip: String, timeout: Duration = .seconds(10)) throws {
        var failures: [String] = []
        for namespace in namespaces where exists(namespace) {
            do {
                try killEverything(in: namespace, timeout: timeout)
                let result = try CommandRunner.run(ip, ["netns", "delete", namespace])
                if exists(namespace) {
                    failures.append("\(namespace): ip netns delete failed: \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
                }
            } catch {
                failures.append("\(error)")
            }
        }
        guard failures.isEmpty else {
            throw LANError(.teardownFailed, failures.joined(separator: "; ")
                + "; look with `ip netns pids NAME`, then `scripts/lan.sh down PREFIX`")
        }
    }

    static func killEverything(in namespace: String, timeout: Duration) throws {
        let path = "\(netnsFolder)/\(namespace)"
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var lastInitKill = clock.now - .seconds(1)
        while true {
            let pids = ProcessTable.pids(inNamespaceAt: path).filter { $0 != getpid() }
            if pids.isEmpty { return }
            guard clock.now < deadline else {
                let described = pids.map { "\($0) \(ProcessTable.name(of: $0) ?? "?")" }.joined(separator: ", ")
                throw LANError(.teardownFailed, "\(namespace) still runs \(described) after \(timeout)")
            }
            let inits = pids.filter(ProcessTable.isPIDNamespaceInit)
            if !inits.isEmpty {
                inits.forEach { kill($0, SIGKILL) }
                lastInitKill = clock.now
            } else if clock.now - lastInitKill > .milliseconds(100) {
                // Give a holder a moment to reap its init and exit by itself before it is killed.
                pids.forEach { kill($0, SIGKILL) }
            }
            usleep(2_000)
        }
    }
}
