import Foundation

/// An agent run as `nobody` by a test that runs as root (CI does): root reads and writes
/// everything, so a folder whose permissions were taken away is a fault only for an
/// ordinary user's agent. Its home is handed to `nobody`, it starts through `setpriv`, and
/// the test's clients reach it through a `socat` relay that also runs as `nobody`, the agent
/// taking connections of its own user only.
extension AgentProcess {
    static let ordinaryUser = ["setpriv", "--reuid=\(OrdinaryUser.uid)", "--regid=\(OrdinaryUser.uid)", "--clear-groups"]

    /// Turns `process`, set up to run `ubiqd`, into one that runs it as `nobody`, and starts
    /// the relay once the process is made.
    func startAsOrdinaryUser(_ process: Process) throws {
        let runtime = home + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        OrdinaryUser.open(home, upTo: (home as NSString).deletingLastPathComponent)
        guard try exitStatus(of: ["chown", "-R", "\(OrdinaryUser.uid):\(OrdinaryUser.uid)", home]) == 0 else {
            throw TimedOut(description: "could not hand \(home) to uid \(OrdinaryUser.uid)")
        }
        let ubiqd = process.executableURL!.path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = Self.ordinaryUser + [ubiqd] + (process.arguments ?? [])
        var environment = process.environment ?? [:]
        environment["HOME"] = home
        environment["XDG_RUNTIME_DIR"] = runtime
        process.environment = environment

        let relay = Process()
        relay.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        relay.arguments = Self.ordinaryUser + ["socat", "UNIX-LISTEN:\(socket),fork,unlink-early", "UNIX-CONNECT:\(agentSocket)"]
        relay.standardOutput = FileHandle.nullDevice
        relay.standardError = FileHandle.nullDevice
        try relay.run()
        lock.withLock { self.relay = relay }
    }

    func stopRelay() {
        guard let relay = lock.withLock({ self.relay }) else { return }
        // SIGKILL: the relay inherits the test process's signal mask, SIGTERM blocked in it.
        if relay.isRunning { Foundation.kill(relay.processIdentifier, SIGKILL) }
        relay.waitUntilExit()
        lock.withLock { self.relay = nil }
    }
}
