import Foundation

/// One workstation of a `NamespaceLAN`: its own network namespace (one interface on the
/// LAN's bridge), and a mount namespace with a private `/run` holding its own dbus-daemon and
/// avahi-daemon. Valid while its LAN is open.
public struct LANHost: Sendable {
    /// 1-based, as in `NamespaceLAN.host(_:)`.
    public let index: Int
    /// The network namespace, as `ip netns` names it.
    public let namespace: String
    /// The host's interface on the LAN (`e1` for host 1).
    public let interface: String
    /// The host's IPv4 address, `198.18.0.<index>`; on an IPv6-only host its IPv6 address.
    public let address: String
    /// The host's unique-local IPv6 address on a LAN with IPv6 (`LANAddressing`), else nil.
    public let ipv6Address: String?
    /// The name avahi-daemon announces (`h1` is `h1.local`).
    public let hostName: String
    /// The process holding the host's mount and network namespaces: `nsenter -t pid -m -n`.
    public let pid: pid_t
    let tools: LANTools

    /// The command line that runs `command` inside this host, starting with the absolute
    /// path of `nsenter`; for callers that build their own `Process`. nsenter enters the
    /// namespaces and execs `command`, so the process started is the command itself.
    public func launchArguments(_ command: [String], directory: String? = nil) -> [String] {
        let directory = directory ?? FileManager.default.currentDirectoryPath
        return [tools.nsenter, "--target", "\(pid)", "--mount", "--net", "--wd=\(directory)", "--"] + command
    }

    /// Runs `command` inside the host to completion. A command that leaves a background
    /// child holding its output open is waited for until that child ends or `timeout`.
    public func run(_ command: [String], timeout: Duration = .seconds(30)) throws -> CommandResult {
        let arguments = launchArguments(command)
        return try CommandRunner.run(arguments[0], Array(arguments.dropFirst()), timeout: timeout)
    }

    /// Runs `command` inside the host and returns its standard output; throws when it fails.
    @discardableResult
    public func output(_ command: [String], timeout: Duration = .seconds(30)) throws -> String {
        let result = try run(command, timeout: timeout)
        guard result.succeeded else {
            throw LANError(.commandFailed, "`\(command.joined(separator: " "))` on \(hostName) failed (\(result.status)): "
                + result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return result.stdout
    }

    /// Starts a long-running `command` (e.g. `ubiqd`) inside the host. The returned process
    /// becomes the command itself (nsenter enters the namespaces, then execs it under the same
    /// pid), so `terminate()` or `kill` on its pid reach the program; it starts with no signals
    /// blocked. `environment` is added to ours; output is appended to `log`, or dropped when nil.
    public func spawn(_ command: [String], environment: [String: String] = [:], log: String? = nil,
                      directory: String? = nil) throws -> Process {
        let arguments = launchArguments(command, directory: directory)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = CommandRunner.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        if let log {
            if !FileManager.default.fileExists(atPath: log) { _ = FileManager.default.createFile(atPath: log, contents: nil) }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            handle.seekToEndOfFile()
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        do {
            try process.runWithDefaultSignalMask()
        } catch {
            throw LANError(.commandFailed, "cannot start \(command.first ?? "") on \(hostName) through nsenter: \(error)")
        }
        return process
    }

    /// Airplane mode: takes the host's interface down; its address and daemons stay.
    public func linkDown() throws {
        try CommandRunner.check(tools.ip, ["-n", namespace, "link", "set", interface, "down"])
    }

    /// Ends airplane mode.
    public func linkUp() throws {
        try CommandRunner.check(tools.ip, ["-n", namespace, "link", "set", interface, "up"])
    }

    /// What this host's avahi-daemon has logged (read through the holder's view of `/run`).
    public func avahiLog() -> String {
        (try? String(contentsOfFile: "/proc/\(pid)/root\(HostDaemons.logPath)", encoding: .utf8)) ?? ""
    }
}
