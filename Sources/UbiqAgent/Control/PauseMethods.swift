import UbiqControlAPI
import UbiqModel
import UbiqSync

/// `sync.pause` and `sync.resume`: for one container, or for the whole agent.
struct PauseMethods: Sendable {
    let status: AgentStatusSource

    func handle(_ method: ControlMethod, params: JSONValue?) async throws -> JSONValue {
        let request = try RPCParams.decode(PauseParams.self, from: params)
        let paused = method == .syncPause
        if let id = request.container {
            try await status.container(id).setPaused(paused)
        } else {
            try await status.engine.setPaused(paused)
        }
        return try JSONValue(encoding: await state())
    }

    func state() async -> PauseResult {
        PauseResult(agentPaused: await status.engine.paused, pausedContainers: status.containers.filter(\.isPaused).map(\.id))
    }
}
