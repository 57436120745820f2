import UbiqControlAPI
import UbiqModel

/// Each method's params, decoded and checked as the agent's handlers do before they touch
/// a container or a store. The result is the decoded params encoded again.
enum ControlParams {
    /// Names a query's glob is tried on: plain, accented both ways, and empty-ish.
    static let names = ["notes.txt", "Zoë.pages", "Zoe\u{0308}.pages", "a", String(repeating: "ab", count: 40)]

    static func check(method: String, params: JSONValue?) throws -> JSONValue {
        guard let known = ControlMethod(rawValue: method) else { throw RPCError.methodNotFound(method) }
        switch known {
        case .agentStatus, .accountIdentity, .peersList, .limitsGet, .devicesList, .accountWatch, .deviceInvite, .accountRotate, .uiURL:
            return .object([:])
        case .deviceRemove:
            return try JSONValue(encoding: decode(DeviceRemoveParams.self, params))
        case .accountLeave:
            return try JSONValue(encoding: decode(AccountLeaveParams.self, params))
        case .accountCreate:
            return try JSONValue(encoding: decode(AccountCreateParams.self, params))
        case .accountJoin:
            return try JSONValue(encoding: decode(AccountJoinParams.self, params))
        case .itemsList:
            let request = try decode(ItemsListParams.self, params)
            _ = try request.path.flatMap { try ControlPath.itemOrRoot($0) }
            return try JSONValue(encoding: request)
        case .versionsList:
            return try paths(decode(VersionsListParams.self, params), \.path)
        case .versionsResolve:
            return try paths(decode(VersionsResolveParams.self, params), \.path)
        case .versionsSave:
            let request = try decode(VersionsSaveParams.self, params)
            _ = try ControlPath.item(request.to, field: "to")
            return try paths(request, \.path)
        case .versionsRead:
            return try paths(decode(VersionsReadParams.self, params), \.path)
        case .ignoreSet:
            return try JSONValue(encoding: decode(IgnoreSetParams.self, params))
        case .historyList, .trashList:
            let request = try decode(HistoryListParams.self, params)
            _ = try request.path.flatMap { try ControlPath.itemOrRoot($0) }
            return try JSONValue(encoding: request)
        case .historyRestore:
            let request = try decode(HistoryRestoreParams.self, params)
            _ = try HistoryVersionID.parse(request.version)
            return try paths(request, \.path)
        case .limitsSet:
            return try JSONValue(encoding: decode(LimitsSetParams.self, params))
        case .syncPause, .syncResume:
            return try JSONValue(encoding: decode(PauseParams.self, params))
        case .historyRestoreFolder:
            return try paths(decode(HistoryRestoreFolderParams.self, params), \.path)
        case .containerURL, .containerRescan, .containerReset, .deletionsList, .deletionsConfirm, .deletionsRestore, .historyPrune, .containerDifferences, .containerOverride,
             .containerRevert, .conflictsList, .ignoreGet:
            return try JSONValue(encoding: decode(ContainerURLParams.self, params))
        case .kvGet:
            return try JSONValue(encoding: decode(KeyValueGetParams.self, params))
        case .kvSet:
            return try keyValueSet(decode(KeyValueSetParams.self, params))
        case .kvRemove:
            return try JSONValue(encoding: decode(KeyValueRemoveParams.self, params))
        case .kvList, .kvSynchronize:
            let request = try decode(KeyValueStoreParams.self, params)
            _ = try ControlTimeout.duration(request.timeout, default: 30)
            return try JSONValue(encoding: request)
        case .kvSubscribe:
            return try JSONValue(encoding: decode(KeyValueSubscribeParams.self, params))
        case .recordsSave:
            let request = try decode(RecordsSaveParams.self, params)
            _ = try RecordJSON.store(request.store)
            for (index, change) in request.changes.enumerated() { _ = try RecordJSON.change(change, at: index) }
            return try JSONValue(encoding: request)
        case .recordsFetch:
            let request = try decode(RecordsFetchParams.self, params)
            _ = try RecordJSON.store(request.store)
            _ = try RecordJSON.name(request.entity, path: "entity")
            if let condition = request.where { _ = try RecordJSON.predicate(condition) }
            return try JSONValue(encoding: request)
        case .recordsSubscribe, .recordsDeleteStore:
            let request = try decode(RecordsStoreParams.self, params)
            _ = try RecordJSON.store(request.store)
            return try JSONValue(encoding: request)
        case .coordinateAcquire:
            return try coordinate(decode(CoordinateAcquireParams.self, params))
        case .coordinateRelease:
            return try JSONValue(encoding: decode(CoordinateReleaseParams.self, params))
        case .presenterRegister:
            return try paths(decode(PresenterRegisterParams.self, params), \.path)
        case .presenterUnregister:
            return try JSONValue(encoding: decode(PresenterID.self, params))
        case .eventsSubscribe:
            return try JSONValue(encoding: decode(EventsSubscribeParams.self, params))
        case .itemStartDownloading:
            let request = try decode(ItemDownloadParams.self, params)
            _ = try ControlTimeout.duration(request.timeout, default: 60)
            return try paths(request, \.path)
        case .itemEvict:
            return try paths(decode(ItemPathParams.self, params), \.path)
        case .queryStart:
            return try query(decode(QueryStartParams.self, params))
        case .queryStop:
            return try JSONValue(encoding: decode(QueryStopParams.self, params))
        case .itemStatus:
            return try paths(decode(ItemStatusParams.self, params), \.path)
        }
    }

    /// Decodes as the agent does, and checks that encoding gives back what was decoded.
    static func decode<T: Codable & Equatable>(_ type: T.Type, _ params: JSONValue?) throws -> T {
        let request = try RPCParams.decode(type, from: params)
        guard let again = try? RPCParams.decode(type, from: JSONValue(encoding: request)), again == request else {
            fatalError("\(type) changes when encoded and decoded again")
        }
        return request
    }

    static func paths<T: Encodable>(_ request: T, _ path: KeyPath<T, String>) throws -> JSONValue {
        _ = try ControlPath.item(request[keyPath: path])
        return try JSONValue(encoding: request)
    }

    static func keyValueSet(_ request: KeyValueSetParams) throws -> JSONValue {
        let changes = try request.changes()
        for case let (_, value?) in changes {
            let bytes = PropertyListCoding.encode(value)
            guard let decoded = try? PropertyListCoding.decode(bytes), PropertyListCoding.encode(decoded) == bytes else {
                fatalError("a property-list value does not survive its binary encoding")
            }
            _ = PropertyListJSON.json(value)
        }
        try KeyValueLimits.iCloud.check(changes, current: [:])
        return try JSONValue(encoding: request)
    }

    static func coordinate(_ request: CoordinateAcquireParams) throws -> JSONValue {
        let items: [CoordinationItem]
        switch (request.path, request.access, request.items) {
        case (let path?, let access?, nil): items = [CoordinationItem(path: path, access: access)]
        case (nil, nil, let list?) where !list.isEmpty && list.count <= 16: items = list
        default: throw RPCError.invalidParams("give path and access, or items (1 to 16 of {path, access})")
        }
        for item in items { _ = try ControlPath.itemOrRoot(item.path) }
        _ = try ControlTimeout.duration(request.timeout, default: 30)
        return try JSONValue(encoding: request)
    }

    static func query(_ request: QueryStartParams) throws -> JSONValue {
        let predicate = try QueryPredicate(request)
        for name in names { _ = predicate.glob?.matches(name) }
        _ = request.order
        return try JSONValue(encoding: request)
    }
}
