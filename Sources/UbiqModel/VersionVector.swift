/// How two version vectors relate (Lamport's happened-before, extended to vectors).
public enum CausalOrder: Sendable, Equatable {
    case equal
    /// The left side has seen everything the right side has, and more.
    case dominates
    /// The right side has seen everything the left side has, and more.
    case dominated
    /// Each side has changes the other has not seen: a conflict.
    case concurrent
}

/// A version vector `{device: counter}` carried by every item and key-value entry.
///
/// A local change that alters content increments the local counter; merging takes the
/// element-wise maximum. Missing entries count as zero, so they are never stored.
public struct VersionVector: Hashable, Sendable, Codable, CustomStringConvertible {
    public private(set) var counters: [DeviceID: UInt64]

    public init(_ counters: [DeviceID: UInt64] = [:]) {
        self.counters = counters.filter { $0.value > 0 }
    }

    public static let empty = VersionVector()

    public var isEmpty: Bool { counters.isEmpty }

    public subscript(device: DeviceID) -> UInt64 { counters[device] ?? 0 }

    /// The events it counts, every device's: a record store's transactions up to it.
    public var total: UInt64 { counters.values.reduce(0, +) }

    /// Whether it has seen every event `other` has (equal to it or after it).
    public func includes(_ other: VersionVector) -> Bool {
        other.counters.allSatisfy { self[$0.key] >= $0.value }
    }

    /// This vector after one more change by `device`.
    public func incremented(by device: DeviceID) -> VersionVector {
        var copy = self
        copy.counters[device, default: 0] += 1
        return copy
    }

    /// This vector after one more change by `device`, counted past `device`'s counter in
    /// `seen` too: a change made here while the device knows a later version of its own
    /// (one it made, merged on a peer and not applied here yet) is not covered by that one.
    public func incremented(by device: DeviceID, past seen: VersionVector?) -> VersionVector {
        var copy = self
        copy.counters[device] = max(self[device], seen?[device] ?? 0) + 1
        return copy
    }

    /// The element-wise maximum: a vector that has seen both.
    public func merged(with other: VersionVector) -> VersionVector {
        var copy = self
        copy.counters.merge(other.counters) { max($0, $1) }
        return copy
    }

    public func compare(to other: VersionVector) -> CausalOrder {
        var greater = false
        var less = false
        for device in Set(counters.keys).union(other.counters.keys) {
            let mine = self[device], theirs = other[device]
            if mine > theirs { greater = true } else if mine < theirs { less = true }
            if greater && less { return .concurrent }
        }
        switch (greater, less) {
        case (false, false): return .equal
        case (true, false): return .dominates
        case (false, true): return .dominated
        case (true, true): return .concurrent
        }
    }

    /// Entries sorted by device, for stable encodings and display.
    public var sortedEntries: [(device: DeviceID, counter: UInt64)] {
        counters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    public var description: String {
        "{" + sortedEntries.map { "\($0.device.rawValue.prefix(7)):\($0.counter)" }.joined(separator: ",") + "}"
    }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode([String: UInt64].self)
        self.init(Dictionary(uniqueKeysWithValues: raw.map { (DeviceID($0.key), $0.value) }))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Dictionary(uniqueKeysWithValues: counters.map { ($0.key.rawValue, $0.value) }))
    }
}
