import UbiqControlAPI
import UbiqModel
import UbiqSync

/// `ignore.get` and `ignore.set`: a container's `.ubiqignore`, read and written for a client.
struct IgnoreMethods: Sendable {
    let status: AgentStatusSource

    func handle(_ method: ControlMethod, params: JSONValue?) async throws -> JSONValue {
        switch method {
        case .ignoreGet:
            let request = try RPCParams.decode(ContainerURLParams.self, from: params)
            return try JSONValue(encoding: try file(of: request.container))
        case .ignoreSet:
            let request = try RPCParams.decode(IgnoreSetParams.self, from: params)
            let container = try status.container(request.container)
            do { try await container.writeIgnoreFile(request.text) } catch let error as IgnoreFileError {
                throw RPCError(.invalidParams, error.description)
            } catch {
                throw RPCError(.internalError, "\(IgnoreRules.fileName) could not be written: \(error); check the container folder's owner and free space")
            }
            return try JSONValue(encoding: try file(of: request.container))
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }

    private func file(of id: ContainerID) throws -> IgnoreFile {
        let container = try status.container(id)
        do {
            let text = try container.ignoreFileText()
            return IgnoreFile(container: id, text: text ?? "", exists: text != nil)
        } catch let error as IgnoreFileError {
            throw RPCError(.unavailable, error.description)
        }
    }
}
