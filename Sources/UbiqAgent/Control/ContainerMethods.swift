import Foundation
import UbiqControlAPI
import UbiqModel
import UbiqSync

/// `container.url` (where a container's folder is on this device), `container.rescan` (compare
/// the folder with the index now), `container.reset` (take the folder as it is now), `versions.save` (a version of a document written out
/// under a new name, "keep both").
struct ContainerMethods: Sendable {
    let status: AgentStatusSource

    func handle(_ method: ControlMethod, params: JSONValue?) async throws -> JSONValue {
        switch method {
        case .containerURL:
            let request = try RPCParams.decode(ContainerURLParams.self, from: params)
            return try JSONValue(encoding: url(of: request.container))
        case .containerRescan:
            let request = try RPCParams.decode(ContainerURLParams.self, from: params)
            return try JSONValue(encoding: try await rescan(request.container))
        case .containerReset:
            let request = try RPCParams.decode(ContainerURLParams.self, from: params)
            return try JSONValue(encoding: try await reset(request.container))
        case .versionsSave:
            let request = try RPCParams.decode(VersionsSaveParams.self, from: params)
            return try JSONValue(encoding: try await save(request))
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }

    /// A container this device does not sync is answered, not refused: iCloud's answer is nil.
    func url(of container: ContainerID) -> ContainerURLResult {
        guard let root = status.roots[container] else { return ContainerURLResult(container: container, url: nil, available: false) }
        var isDirectory: ObjCBool = false
        let present = FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) && isDirectory.boolValue
        return ContainerURLResult(container: container, url: root, available: present)
    }

    private func rescan(_ id: ContainerID) async throws -> ContainerRescanResult {
        let container = try status.container(id)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let summary = try await container.rescan()
            let elapsed = clock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return ContainerRescanResult(container: id, items: summary.seen, changed: summary.changed, seconds: seconds)
        } catch let error as ScanBusy {
            throw RPCError(.unavailable, error.description)
        } catch {
            throw RPCError(.internalError, "the rescan failed: \(error)")
        }
    }

    private func reset(_ id: ContainerID) async throws -> ContainerResetResult {
        let container = try status.container(id)
        do {
            let summary = try await container.resetFolder()
            return ContainerResetResult(container: id, folder: summary.folder, refetching: summary.refetching)
        } catch let error as FolderUnavailableError {
            throw RPCError(.unavailable, error.description)
        } catch {
            throw RPCError(.internalError, "the folder of \(id) could not be reset: \(error); check that its path is a folder this user can write")
        }
    }

    private func save(_ request: VersionsSaveParams) async throws -> VersionsSaveResult {
        let container = try status.container(request.container)
        let source = try ControlPath.item(request.path)
        let destination = try ControlPath.item(request.to, field: "to")
        let versionID: String? = switch request.version {
        case .current: nil
        case .version(let id): id
        }
        do {
            let saved = try await container.saveVersion(of: source, id: versionID, to: destination)
            return VersionsSaveResult(path: saved.item.path.rawValue, version: saved.versionID, size: Int64(saved.item.size))
        } catch let error as SaveVersionError {
            let code: RPCError.Code = switch error.code {
            case .notFound: .notFound
            case .versionNotFound: .conflictNotFound
            case .alreadyExists: .alreadyExists
            case .notSyncable: .invalidPath
            case .unsupported: .invalidParams
            case .busy: .unavailable
            }
            throw RPCError(code, error.reason)
        } catch let error as FetchError {
            throw RPCError(.unavailable, "part of the version is on no connected device (\(error.reason)); try again when a peer that holds it is connected")
        }
    }
}
