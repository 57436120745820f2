import Foundation
import Testing
import UbiqModel
import UbiqTestSupport

/// One agent per state folder and per container folder: a second `ubiqd` on a running agent's
/// state folder, or on a container folder another agent syncs, refuses at once, names the
/// running agent's pid, and writes nothing (no socket, no state of its own, no index).
@Suite struct OneAgentTests {
    @Test func aSecondAgentOnARunningAgentsStateFolderRefusesBeforeItWritesAnything() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        let pid = try #require(a.pid)
        let before = try FileManager.default.contentsOfDirectory(atPath: a.state).sorted()
        let socket = cluster.directory.appending("second.sock")
        let other = cluster.directory.appending("other-container")
        let second = try await AgentProcess.run("ubiqd", [
            "--state", a.state, "--socket", socket, "--listen", "127.0.0.1:\(try freeLoopbackPort())", "--no-discovery", "--no-ui",
            "--container", "\(a.container)=\(other)"], killAfter: .seconds(30))
        #expect(second.status != 0)
        #expect(second.errors.contains("another ubiqd (pid \(pid)) runs on the state folder"), "\(second.errors)")
        #expect(!second.output.contains("identity token"), "it printed its banner: \(second.output)")
        #expect(!FileManager.default.fileExists(atPath: socket) && !FileManager.default.fileExists(atPath: other))
        #expect(try FileManager.default.contentsOfDirectory(atPath: a.state).sorted() == before)
        #expect(a.isRunning)
    }

    @Test func aSecondAgentOnAContainerFolderAnotherAgentSyncsRefuses() async throws {
        let cluster = try await LiveCluster(["alpha"])
        defer { cluster.stopAll() }
        let a = cluster.agents[0]
        try await cluster.start()
        let pid = try #require(a.pid)
        let state = cluster.directory.appending("second-state")
        let second = try await AgentProcess.run("ubiqd", [
            "--state", state, "--socket", cluster.directory.appending("second.sock"), "--listen", "127.0.0.1:\(try freeLoopbackPort())",
            "--no-discovery", "--no-ui", "--container", "\(a.container)=\(a.root)"], killAfter: .seconds(30))
        #expect(second.status != 0)
        #expect(second.errors.contains("another ubiqd (pid \(pid)) syncs the folder \(a.root)"), "\(second.errors)")
        #expect(!FileManager.default.fileExists(atPath: state + "/index.sqlite"), "it made an index")
        #expect(a.isRunning)
    }
}
