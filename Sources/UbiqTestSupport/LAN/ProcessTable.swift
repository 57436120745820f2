import Foundation

/// Reads `/proc` to find processes by network namespace or name, the way `ip netns pids` does,
/// so teardown and tests can check what still runs where.
public enum ProcessTable {
    /// The identity of a namespace file (`/run/netns/NAME` or `/proc/PID/ns/net`).
    public struct NamespaceID: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    public static func namespace(at path: String) -> NamespaceID? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return NamespaceID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The network namespace this process runs in.
    public static var ownNetworkNamespace: NamespaceID? { namespace(at: "/proc/self/ns/net") }

    /// Every live process (zombies have no namespace and are left out).
    public static func allPIDs() -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }
    }

    public static func networkNamespace(of pid: pid_t) -> NamespaceID? {
        namespace(at: "/proc/\(pid)/ns/net")
    }

    /// Processes whose network namespace is the one bound at `path` (e.g. `/run/netns/NAME`).
    public static func pids(inNamespaceAt path: String) -> [pid_t] {
        guard let target = namespace(at: path) else { return [] }
        return allPIDs().filter { networkNamespace(of: $0) == target }
    }

    /// The short command name (`/proc/PID/comm`).
    public static func name(of pid: pid_t) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public static func pids(named name: String) -> [pid_t] {
        allPIDs().filter { self.name(of: $0) == name }
    }

    /// Whether `pid` is process 1 of a PID namespace below ours: killing it kills and reaps
    /// everything in that namespace.
    public static func isPIDNamespaceInit(_ pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("NSpid:") }) else { return false }
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst()
        return fields.count > 1 && fields.last == "1"
    }
}
