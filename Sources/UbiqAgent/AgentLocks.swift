#if canImport(Glibc)
import Glibc
#endif
import Foundation
import UbiqConfig
import UbiqFileSystem
import UbiqIdentity

/// Another agent runs on this agent's state folder or syncs one of its container folders:
/// this one refuses to start, before it touches either.
public struct AgentAlreadyRunning: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// What makes an agent the only one on its state folder and its container folders: a
/// ``ProcessLock`` on `<state>/agent.lock`, and one per container folder in the user's
/// runtime folder (`$XDG_RUNTIME_DIR/ubiq/locks`, else `/tmp/ubiq-UID/locks`), held for the
/// agent's life. Taken first of all, so a second agent leaves no trace.
struct AgentLocks: Sendable {
    let held: [ProcessLock]

    static func take(_ configuration: AgentConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> AgentLocks {
        try StateDirectory(path: configuration.stateDirectory).create()
        var held: [ProcessLock] = []
        do {
            held.append(try ProcessLock(at: configuration.stateDirectory + "/agent.lock"))
        } catch let error as LockHeld {
            throw AgentAlreadyRunning(description: "another ubiqd (\(error.pid.map { "pid \($0)" } ?? "pid unknown")) runs on the state folder \(configuration.stateDirectory); stop it first, or give this agent a state folder of its own with --state")
        }
        let folder = lockFolder(environment)
        for container in configuration.containers {
            do {
                held.append(try ProcessLock(forFolder: container.path, in: folder))
            } catch let error as LockHeld {
                throw AgentAlreadyRunning(description: "another ubiqd (\(error.pid.map { "pid \($0)" } ?? "pid unknown")) syncs the folder \(container.path) of container \(container.id); two agents on one folder would undo each other's work: stop it, or give this container another folder")
            }
        }
        return AgentLocks(held: held)
    }

    static func lockFolder(_ environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/ubiq/locks" }
        return "/tmp/ubiq-\(getuid())/locks"
    }
}
