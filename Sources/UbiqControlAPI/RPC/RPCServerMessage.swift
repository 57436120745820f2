/// What a client reads from the agent: the answer to one of its requests, or a notification.
public enum RPCServerMessage: Hashable, Sendable {
    case response(RPCResponse)
    case notification(RPCNotification)

    /// Reads one line; nil when it is neither a response nor a notification.
    public init?(line: some Collection<UInt8>) {
        guard let json = try? JSONValue(parsing: line) else { return nil }
        if let response = RPCResponse(json: json) {
            self = .response(response)
        } else if let notification = RPCNotification(json: json) {
            self = .notification(notification)
        } else {
            return nil
        }
    }
}
