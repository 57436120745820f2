import UbiqControlAPI

/// One valid request per control method, as the `ubiq` client writes them.
enum ControlLineSeeds {
    static let container = "TEAMID.com.example.notes"
    static let store = "TEAMID.com.example.game"

    static func all() -> [(name: String, bytes: [UInt8])] {
        var seen: [ControlMethod: Int] = [:]
        let lines = requests().enumerated().map { index, request in
            seen[request.method, default: 0] += 1
            let name = request.method.rawValue + (seen[request.method] == 1 ? "" : "-\(seen[request.method]!)")
            return (name: name, line: RPCRequest(id: .number(Int64(index + 1)), method: request.method.rawValue, params: request.params).json)
        }
        var seeds = lines.map { (name: $0.name, bytes: Array($0.line.serialized().utf8) + [0x0A]) }
        let session = lines.map { $0.line.serialized(pretty: false) }.joined(separator: "\r\n")
        seeds.append((name: "session", bytes: Array(session.utf8)))
        let notification = RPCRequest(id: nil, method: ControlMethod.kvSubscribe.rawValue, params: .object([:]))
        seeds.append((name: "notification", bytes: Array(notification.json.serialized().utf8) + [0x0A]))
        seeds.append((name: "string-id", bytes: Array(#"{"jsonrpc":"2.0","id":"a\u00e9\ud83d\ude00","method":"agent.status","params":[]}"#.utf8) + [0x0A]))
        return seeds
    }

    static func requests() -> [(method: ControlMethod, params: JSONValue?)] {
        let item: JSONValue = ["container": .string(container), "path": "Documents/notes.txt"]
        return [
            (.agentStatus, nil),
            (.accountIdentity, .object([:])),
            (.accountWatch, nil),
            (.accountLeave, ["keep": .bool(true)]),
            (.accountCreate, ["name": "desk"]),
            (.accountJoin, ["bundle": "-----BEGIN UBIQ ACCOUNT-----", "name": "laptop"]),
            (.peersList, nil),
            (.devicesList, nil),
            (.deviceInvite, nil),
            (.deviceRemove, ["device": "LOSTLOST-DEVICE"]),
            (.accountRotate, nil),
            (.containerRevert, ["container": .string(container)]),
            (.itemsList, ["container": .string(container), "path": "Documents/"]),
            (.versionsList, item),
            (.versionsResolve, ["container": .string(container), "path": "a.txt", "keep": "PEERPEER-7"]),
            (.versionsSave, ["container": .string(container), "path": "a.txt", "version": "current", "to": "a copy.txt"]),
            (.containerURL, ["container": .string(container)]),
            (.conflictsList, ["container": .string(container)]),
            (.versionsRead, ["container": .string(container), "path": "a.txt", "version": "current", "maxBytes": .integer(4096)]),
            (.ignoreGet, ["container": .string(container)]),
            (.ignoreSet, ["container": .string(container), "text": "*.tmp\n!keep.tmp\n"]),
            (.uiURL, nil),
            (.containerRescan, ["container": .string(container)]),
            (.kvGet, ["store": .string(store), "key": "level"]),
            (.kvSet, ["store": .string(store), "key": "level", "value": .integer(13)]),
            (.kvSet, ["store": .string(store), "values": [
                "volume": .double(0.75), "name": "Zoë", "done": .bool(true), "scores": [.integer(1), .double(2.5)],
                "blob": ["$data": "AAEC/w=="], "saved": ["$date": "2026-11-22T09:15:02.517Z"], "nested": ["a": ["b": .integer(-1)]],
            ]]),
            (.kvRemove, ["store": .string(store), "keys": ["level", "name"]]),
            (.kvList, ["store": .string(store)]),
            (.kvSynchronize, ["store": .string(store), "timeout": .double(2.5)]),
            (.kvSubscribe, ["store": .string(store)]),
            (.recordsSave, ["container": .string(container), "store": "todos", "changes": [
                ["op": "insert", "entity": "Task", "id": "t-1", "attributes": ["title": "milk", "list": ["$ref": ["entity": "List", "id": "l-1"]]]],
                ["op": "update", "entity": "Task", "id": "t-2", "attributes": ["done": .bool(true), "note": .null]],
                ["op": "delete", "entity": "Task", "id": "t-3"],
            ]]),
            (.recordsFetch, ["container": .string(container), "store": "todos", "entity": "Task", "limit": .integer(10),
                             "sort": [["attribute": "rank", "descending": .bool(true)]],
                             "where": ["any": [["attribute": "rank", "op": ">=", "value": .integer(2)], ["attribute": "title", "contains": "milk"]]]]),
            (.recordsSubscribe, ["container": .string(container), "store": "todos"]),
            (.recordsDeleteStore, ["container": .string(container), "store": "todos"]),
            (.coordinateAcquire, ["container": .string(container), "path": "a.txt", "access": "read"]),
            (.coordinateAcquire, ["container": .string(container), "timeout": .integer(5), "items": [
                ["path": "a.txt", "access": "read"], ["path": "Documents/", "access": "write"],
            ]]),
            (.coordinateRelease, ["lease": .integer(3)]),
            (.presenterRegister, item),
            (.presenterUnregister, ["presenter": .integer(1)]),
            (.eventsSubscribe, ["container": .string(container)]),
            (.itemStartDownloading, ["container": .string(container), "path": "big.bin", "wait": .bool(true), "timeout": .integer(10)]),
            (.itemEvict, item),
            (.queryStart, ["container": .string(container), "scope": "documents", "glob": "*.t?t",
                                                "ignoreCase": .bool(true), "sort": "size", "descending": .bool(true)]),
            (.queryStop, ["query": "q1"]),
            (.itemStatus, item),
        ]
    }
}
