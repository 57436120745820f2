import Foundation
import Synchronization
import UbiqControl
import UbiqControlAPI
import UbiqModel
import UbiqSync

/// `coordinate.*` and `presenter.*`: file coordination leases for clients, and presenters
/// that hear of every change to the item they present.
struct CoordinationMethods: Sendable {
    let status: AgentStatusSource
    let leases: FileLeases
    let onDemand: OnDemandMethods

    static let defaultTimeout = 30.0
    private static let nextPresenter = Atomic<UInt64>(1)

    func handle(_ method: ControlMethod, params: JSONValue?, connection: ControlConnection) async throws -> JSONValue {
        switch method {
        case .coordinateAcquire:
            return try await acquire(try RPCParams.decode(CoordinateAcquireParams.self, from: params), connection: connection)
        case .coordinateRelease:
            let request = try RPCParams.decode(CoordinateReleaseParams.self, from: params)
            guard await leases.heldLeases.contains(where: { $0.id == request.lease && $0.holder == .client(connection: connection.id) })
            else { throw RPCError(.notFound, "this connection holds no lease \(request.lease)") }
            await leases.release(request.lease)
            return [:]
        case .presenterRegister:
            return try await register(try RPCParams.decode(PresenterRegisterParams.self, from: params), connection: connection)
        case .presenterUnregister:
            let request = try RPCParams.decode(PresenterID.self, from: params)
            guard let task = await resources(of: connection).presenters.withLock({ $0.removeValue(forKey: request.presenter) }) else {
                throw RPCError(.notFound, "this connection has no presenter \(request.presenter)")
            }
            task.cancel()
            return [:]
        default:
            throw RPCError.methodNotFound(method.rawValue)
        }
    }

    private func acquire(_ request: CoordinateAcquireParams, connection: ControlConnection) async throws -> JSONValue {
        let items: [CoordinationItem]
        switch (request.path, request.access, request.items) {
        case (let path?, let access?, nil): items = [CoordinationItem(path: path, access: access)]
        case (nil, nil, let list?) where !list.isEmpty && list.count <= 16: items = list
        default: throw RPCError.invalidParams("give path and access, or items (1 to 16 of {path, access})")
        }
        var claims: [FileLeases.Claim] = []
        for item in items {
            guard let access = FileLeases.Access(rawValue: item.access) else {
                throw RPCError.invalidParams("access must be \"read\" or \"write\", not \"\(item.access.prefix(40))\"")
            }
            claims.append(.init(container: request.container, path: try ControlPath.itemOrRoot(item.path), access: access))
        }
        let timeout = try ControlTimeout.duration(request.timeout, default: Self.defaultTimeout)
        let deadline = ContinuousClock.now + timeout
        // A coordinated access to a file whose content is not here waits for it first.
        let container = try status.container(request.container)
        for claim in claims {
            guard let path = claim.path else { continue }
            guard try await onDemand.ensureDownloaded(container, path, timeout: deadline - .now, connection: connection) else {
                throw RPCError(.leaseTimeout, "'\(path)' was not downloaded within \(ControlTimeout.seconds(timeout)) s")
            }
        }
        let holder = FileLeases.Holder.client(connection: connection.id)
        _ = await resources(of: connection)
        guard let lease = await leases.acquire(claims, for: holder, timeout: max(.zero, deadline - .now)) else {
            var blockers: Set<String> = []
            for claim in claims { if let holder = await leases.blocker(of: claim)?.holder { blockers.insert("\(holder)") } }
            throw RPCError(.leaseTimeout, "no lease within \(ControlTimeout.seconds(timeout)) s" + (blockers.isEmpty ? "" : "; held by \(blockers.sorted().joined(separator: ", "))"))
        }
        if connection.isClosed {
            await leases.release(lease.id)
            throw RPCError(.unavailable, "the connection closed while waiting")
        }
        // What the client is about to change in place goes to the history first.
        await container.keepBeforeWrite(claims.compactMap { $0.access == .write ? $0.path : nil }, lease: lease.id)
        return try JSONValue(encoding: CoordinateAcquireResult(lease: lease.id))
    }

    /// The connection's presenters; on first use, arranges that they, its leases and its
    /// waits for leases end with the connection.
    private func resources(of connection: ControlConnection) async -> ClientResources {
        let (resources, created) = connection.attachment(ClientResources.self) { ClientResources() }
        if created {
            let leases = self.leases, id = connection.id
            await connection.onClose {
                let tasks = resources.presenters.withLock { table in
                    defer { table.removeAll() }
                    return Array(table.values)
                }
                for task in tasks { task.cancel() }
                await leases.releaseAll(of: .client(connection: id))
            }
        }
        return resources
    }

    // MARK: presenters

    private func register(_ request: PresenterRegisterParams, connection: ControlConnection) async throws -> JSONValue {
        let container = try status.container(request.container)
        let start = try ControlPath.item(request.path)
        let id = Self.nextPresenter.wrappingAdd(1, ordering: .relaxed).oldValue
        let changes = container.itemChanges()
        let resources = await resources(of: connection)
        // Made under the table's lock, so the task cannot take itself out before it is in.
        resources.presenters.withLock { table in
            table[id] = Task {
                // A presenter that ended (its reader fell behind, or the connection is going)
                // leaves the table before it says so, so a client that registers again and
                // again leaves nothing behind.
                let leave = { _ = resources.presenters.withLock { $0.removeValue(forKey: id) } }
                var presented = start
                for await change in changes {
                    for (method, event) in Self.events(for: change, presented: &presented, presenter: id) {
                        do {
                            try await connection.notify(method: method.rawValue, params: try JSONValue(encoding: event))
                        } catch {
                            leave()
                            return
                        }
                    }
                }
                leave()
                await connection.tellFellBehind(FellBehindNotice(method: FellBehindNotice.presenterMethod, presenter: id))
            }
        }
        return try JSONValue(encoding: PresenterID(presenter: id))
    }

    /// What a presenter of `presented` hears of `change`; follows the item when it moves.
    static func events(for change: ItemChange, presented: inout RelativePath, presenter: UInt64)
        -> [(ControlNotification, PresenterEvent)]
    {
        let path = change.item.path
        guard path.isInside(presented) else { return [] }
        let item = change.item
        func event(_ path: String, to: String? = nil, conflicts: [String]? = nil) -> PresenterEvent {
            PresenterEvent(presenter: presenter, container: change.container, path: path, to: to, origin: change.origin.rawValue,
                           version: "\(item.version)", conflicts: conflicts)
        }
        if let target = change.movedTo {
            if path == presented { presented = target }
            return [(.presenterDidMove, event(path.rawValue, to: target.rawValue))]
        }
        if item.deleted { return [(.presenterDidDelete, event(path.rawValue))] }
        var result: [(ControlNotification, PresenterEvent)] = [(.presenterDidChange, event(path.rawValue))]
        if change.addsConflicts {
            result.append((.presenterConflict, event(path.rawValue, conflicts: item.conflicts.map(\.id))))
        }
        return result
    }
}

/// What one control connection holds of coordination: its presenters' forwarding tasks.
final class ClientResources: Sendable {
    let presenters = Mutex<[UInt64: Task<Void, Never>]>([:])
}
