import UbiqControlAPI

/// What the control server dispatches requests to; the agent implements it.
///
/// Throw an `RPCError` to answer with that error; any other error answers
/// `internalError` with its description. Requests on one connection may run concurrently.
public protocol ControlHandler: Sendable {
    func handle(method: String, params: JSONValue?, connection: ControlConnection) async throws -> JSONValue
}
