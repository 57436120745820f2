/// The account's devices and its removed devices, as this device knows them. Merging what
/// peers send in any order ends in the same registry everywhere (records merge field by
/// field, revocations accumulate); each merge says what is news, so that only news is
/// stored and passed on. Checking a revocation's signature is the caller's: the model knows
/// no keys.
public struct DeviceRegistry: Sendable, Equatable {
    public private(set) var devices: [DeviceID: DeviceRecord] = [:]
    public private(set) var revocations: [DeviceID: Revocation] = [:]

    /// The most devices a registry takes in; past it, records of devices it does not know
    /// are dropped (a peer cannot make it grow without bound).
    public static let maximumDevices = 10_000

    public init(devices: [DeviceRecord] = [], revocations: [Revocation] = []) {
        _ = merge(devices)
        _ = merge(revocations)
    }

    public func isRevoked(_ device: DeviceID) -> Bool { revocations[device] != nil }

    /// Takes in `records`; returns the records that changed, as they are now.
    public mutating func merge(_ records: [DeviceRecord]) -> [DeviceRecord] {
        var changed: [DeviceID: DeviceRecord] = [:]
        for record in records {
            let merged: DeviceRecord
            if let known = devices[record.id] {
                merged = known.merged(with: record)
                guard merged != known else { continue }
            } else {
                guard devices.count < Self.maximumDevices else { continue }
                merged = record
            }
            devices[record.id] = merged
            changed[record.id] = merged
        }
        return changed.values.sorted { $0.id < $1.id }
    }

    /// Takes in revocations whose signatures were checked; returns those that are news.
    public mutating func merge(_ revocations: [Revocation]) -> [Revocation] {
        var news: [DeviceID: Revocation] = [:]
        for revocation in revocations {
            if let known = self.revocations[revocation.device], !revocation.preferred(over: known) { continue }
            self.revocations[revocation.device] = revocation
            news[revocation.device] = revocation
        }
        return news.values.sorted { $0.device < $1.device }
    }
}
