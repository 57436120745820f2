import ServiceLifecycle
import UbiqControl

/// The control socket as a service of the agent.
struct ControlService: Service {
    let server: ControlServer

    func run() async throws {
        try await server.run()
    }
}

extension ControlService: CustomStringConvertible {
    var description: String { "ControlService" }
}
