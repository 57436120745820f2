import Foundation
import UbiqControlAPI
import UbiqModel
import UbiqSync

/// `conflicts.list` (the files with conflict versions) and `versions.read` (the start of one
/// version's content): what a person needs to compare versions before keeping one.
struct ConflictMethods: Sendable {
    let status: AgentStatusSource

    func handle(_ method: ControlMethod, params: JSONValue?) async throws -> JSONValue {
        switch method {
        case .conflictsList:
            let request = try RPCParams.decode(ContainerURLParams.self, from: params)
            let items = try status.container(request.container).conflictedItems()
            return try JSONValue(encoding: items.map {
                ConflictEntry(path: $0.path.rawValue, conflicts: $0.conflicts.count, size: Int64($0.size),
                              mtime: AccountMethods.date($0.mtime), modifiedBy: $0.modifiedBy)
            })
        case .versionsRead:
            return try JSONValue(encoding: try await read(try RPCParams.decode(VersionsReadParams.self, from: params)))
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }

    private func read(_ request: VersionsReadParams) async throws -> VersionsReadResult {
        let limit = request.maxBytes ?? VersionsReadParams.defaultBytes
        guard (0...VersionsReadParams.maximumBytes).contains(limit) else {
            throw RPCError(.invalidParams, "maxBytes must be from 0 to \(VersionsReadParams.maximumBytes)")
        }
        let container = try status.container(request.container)
        let path = try ControlPath.item(request.path)
        let versionID: String? = switch request.version {
        case .current: nil
        case .version(let id): id
        }
        do {
            let read = try await container.readVersion(of: path, id: versionID, limit: limit)
            return VersionsReadResult(path: request.path, version: read.versionID, size: Int64(read.size),
                                      truncated: UInt64(read.data.count) < read.size, data: read.data)
        } catch let error as SaveVersionError {
            let code: RPCError.Code = switch error.code {
            case .notFound: .notFound
            case .versionNotFound: .conflictNotFound
            case .unsupported, .alreadyExists, .notSyncable: .invalidParams
            case .busy: .unavailable
            }
            throw RPCError(code, error.reason)
        } catch let error as FetchError {
            throw RPCError(.unavailable, "part of the version is on no connected device (\(error.reason)); try again when a peer that holds it is connected")
        }
    }
}
