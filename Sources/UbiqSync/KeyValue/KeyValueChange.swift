import UbiqModel

/// The answer to `kv.synchronize`: which connected peers have stored everything this device
/// held when it was asked, and which have not (yet).
public struct KeyValueSyncOutcome: Sendable, Equatable {
    public var acknowledged: [DeviceID]
    public var pending: [DeviceID]

    public init(acknowledged: [DeviceID], pending: [DeviceID]) {
        self.acknowledged = acknowledged
        self.pending = pending
    }

    public var complete: Bool { pending.isEmpty }
}
