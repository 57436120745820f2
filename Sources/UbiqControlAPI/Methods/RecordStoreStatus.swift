/// A record store of a container in `agent.status`: how far it has imported, and the change
/// logs it refused (damaged, claiming another store or device than their path, against the
/// order), so a user sees why another device's records are missing here.
public struct RecordStoreStatus: Hashable, Sendable, Codable {
    public var name: String
    /// The transactions of every device imported here, this device's own included.
    public var transactions: Int
    /// Logs read that wait for a transaction they have seen and that is not here yet.
    public var waiting: Int
    public var refused: [RefusedLogStatus]

    public init(name: String, transactions: Int, waiting: Int, refused: [RefusedLogStatus]) {
        self.name = name
        self.transactions = transactions
        self.waiting = waiting
        self.refused = refused
    }
}

/// A change log left out of its store, and why.
public struct RefusedLogStatus: Hashable, Sendable, Codable {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
