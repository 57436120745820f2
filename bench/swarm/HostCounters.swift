import Foundation
import UbiqTestSupport

/// What each host of the LAN has used at one moment: the bytes its interface sent (as the
/// kernel counts them: frames with their TCP/IP headers, the TLS of the sync connections
/// and avahi's few mDNS packets included), and the CPU time of the tool's process on it.
struct HostCounters {
    /// Host 1 first.
    var sent: [Int64]
    var cpuSeconds: [Double]
    var machine: MachineCPU

    /// Reads every host's interface counter (`ip -s -j link` inside the host) and the CPU
    /// time of the process named `program` there.
    static func read(_ lan: NamespaceLAN, program: String) throws -> HostCounters {
        var sent: [Int64] = []
        var cpu: [Double] = []
        for host in lan.hosts {
            let json = try host.output(["ip", "-s", "-j", "link", "show", "dev", host.interface])
            guard let links = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]],
                  let stats = links.first?["stats64"] as? [String: Any], let tx = stats["tx"] as? [String: Any],
                  let bytes = (tx["bytes"] as? NSNumber)?.int64Value else {
                throw BenchmarkError("cannot read the sent bytes of \(host.interface) in \(host.namespace) from: \(json)")
            }
            sent.append(bytes)
            let pids = ProcessTable.pids(inNamespaceAt: "/run/netns/\(host.namespace)").filter { ProcessTable.name(of: $0) == program }
            cpu.append(pids.compactMap(processCPUSeconds).reduce(0, +))
        }
        return HostCounters(sent: sent, cpuSeconds: cpu, machine: MachineCPU.now())
    }
}

/// User plus system CPU seconds of a live process (`/proc/PID/stat`).
func processCPUSeconds(_ pid: pid_t) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let end = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The machine's CPU time from the first line of `/proc/stat`, in clock ticks over all cores.
struct MachineCPU {
    var busy: Double
    var total: Double

    static func now() -> MachineCPU {
        let line = ((try? String(contentsOfFile: "/proc/stat", encoding: .utf8)) ?? "").split(separator: "\n").first ?? ""
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 5 else { return MachineCPU(busy: 0, total: 0) }
        // user nice system idle iowait irq softirq steal …: idle and iowait are not busy.
        let total = ticks.prefix(8).reduce(0, +)
        return MachineCPU(busy: total - ticks[3] - ticks[4], total: total)
    }

    /// The share of all cores busy between `earlier` and this reading, 0 to 1.
    func busyShare(since earlier: MachineCPU) -> Double {
        let total = self.total - earlier.total
        return total > 0 ? (busy - earlier.busy) / total : 0
    }
}

/// A failure of the benchmark itself (not a missed target), with what to look at.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Whether a compiler, a linker or `swift test` runs on the machine now: the figures of a run
/// during which one did were measured on a shared machine (`bench/host.py` looks for the
/// same compilers).
func buildOrTestRunning() -> Bool {
    let names: Set<String> = ["swift-frontend", "swift-build", "swift-driver", "swiftc", "clang", "ld.gold", "ld.lld",
                              "cc1", "cc1plus", "rustc", "go", "swift-test"]
    return ProcessTable.allPIDs().contains { ProcessTable.name(of: $0).map(names.contains) ?? false }
}
