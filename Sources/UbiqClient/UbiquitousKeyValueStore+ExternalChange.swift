import UbiqControlAPI
import UbiqModel

extension UbiquitousKeyValueStore {
    /// A change of the store that came from another device: what
    /// ``UbiquitousKeyValueStore/externalChanges()`` yields, with the values typed.
    public typealias ExternalChange = KeyValueChange
}

extension KeyValueChange {
    /// The typed form of a `kv.didChangeExternally` notice. A reason this client does not
    /// know (from a newer agent) reads as `remoteChange`: values changed, read them again.
    public init(_ notice: KeyValueChangeNotice) throws {
        let conflicts = try (notice.conflicts ?? []).map { conflict in
            Conflict(key: conflict.key, winner: try Self.value(conflict.winner, key: conflict.key),
                     winnerDevice: conflict.winnerDevice,
                     loser: try Self.value(conflict.loser, key: conflict.key), loserDevice: conflict.loserDevice)
        }
        self.init(store: notice.store, reason: Reason(rawValue: notice.reason) ?? .remoteChange, keys: notice.keys,
                  conflicts: conflicts)
    }

    private static func value(_ json: JSONValue, key: String) throws -> PropertyListValue? {
        guard !json.isNull else { return nil }
        do { return try PropertyListJSON.value(json, path: key) } catch {
            throw UbiqClientError(.invalidResponse, "the agent sent a conflict value this client cannot read: \(error.message)")
        }
    }
}
