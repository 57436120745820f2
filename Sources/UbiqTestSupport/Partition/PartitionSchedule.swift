import UbiqModel

/// One step of a randomized partition test. Steps that act on an existing file or folder
/// carry a `pick`, resolved against what that host's disk holds when the step runs.
public enum PartitionStep: Sendable, Hashable, CustomStringConvertible {
    case create(host: Int, folder: String, name: String, size: Int)
    /// Overwrites a stretch in the middle of a file.
    case edit(host: Int, pick: Int, size: Int)
    case append(host: Int, pick: Int)
    case rename(host: Int, pick: Int, folder: String, name: String)
    case delete(host: Int, pick: Int)
    /// Moves a whole folder of `Documents/` to another name.
    case moveFolder(host: Int, pick: Int, name: String)
    case keyValueSet(host: Int, key: String)
    case keyValueRemove(host: Int, key: String)
    /// Takes the host's LAN interface down, or brings it back.
    case cut(host: Int), restore(host: Int)
    /// SIGKILL of the host's agent, or its start again.
    case kill(host: Int), restart(host: Int)
    case pause(milliseconds: Int)

    public var description: String {
        switch self {
        case let .create(host, folder, name, size): "h\(host) create \(folder)/\(name) (\(size) B)"
        case let .edit(host, pick, size): "h\(host) edit #\(pick) (\(size) B)"
        case let .append(host, pick): "h\(host) append #\(pick)"
        case let .rename(host, pick, folder, name): "h\(host) rename #\(pick) to \(folder)/\(name)"
        case let .delete(host, pick): "h\(host) delete #\(pick)"
        case let .moveFolder(host, pick, name): "h\(host) move folder #\(pick) to \(name)"
        case let .keyValueSet(host, key): "h\(host) kv set \(key)"
        case let .keyValueRemove(host, key): "h\(host) kv remove \(key)"
        case let .cut(host): "h\(host) cut"
        case let .restore(host): "h\(host) restore"
        case let .kill(host): "h\(host) kill"
        case let .restart(host): "h\(host) restart"
        case let .pause(milliseconds): "pause \(milliseconds) ms"
        }
    }
}

/// A random schedule of writes, cuts and kills over `hosts` hosts, the same for the same
/// seed. Names come from small pools so hosts collide on paths; most files are small, some
/// span many chunks so that kills and cuts land in the middle of transfers. A schedule ends
/// with every host's link up and every agent running.
public struct PartitionSchedule: Sendable {
    public let seed: UInt64
    public let hosts: Int
    public let steps: [PartitionStep]

    public static let folders = ["notes", "notes/old", "photos", "work", "work/q3"]
    public static let folderNames = ["archive", "drafts", "moved", "spare"]
    public static let fileNames = ["a.txt", "b.txt", "c.md", "d.bin", "e.txt", "f.md", "g.txt", "h.bin"]
    public static let keys = ["level", "score", "theme", "volume", "name"]

    public init(seed: UInt64, hosts: Int, steps count: Int) {
        precondition(hosts >= 2)
        self.seed = seed
        self.hosts = hosts
        var random = SplitMix64(seed: seed)
        var cut = Set<Int>(), killed = Set<Int>()
        var steps: [PartitionStep] = []
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        func size() -> Int {
            random.next() % 6 == 0 ? Int(random.next() % (3 << 20)) + (256 << 10) : Int(random.next() % 4096) + 1
        }
        while steps.count < count {
            let host = Int(random.next() % UInt64(hosts)) + 1
            let roll = random.next() % 100
            let p = Int(random.next() % 1000)
            switch roll {
            case 0..<22: steps.append(.create(host: host, folder: pick(Self.folders), name: pick(Self.fileNames), size: size()))
            case 22..<36: steps.append(.edit(host: host, pick: p, size: size() / 4 + 1))
            case 36..<44: steps.append(.append(host: host, pick: p))
            case 44..<52: steps.append(.rename(host: host, pick: p, folder: pick(Self.folders), name: pick(Self.fileNames)))
            case 52..<58: steps.append(.delete(host: host, pick: p))
            case 58..<61: steps.append(.moveFolder(host: host, pick: p, name: pick(Self.folderNames)))
            case 61..<68: steps.append(.keyValueSet(host: host, key: pick(Self.keys)))
            case 68..<70: steps.append(.keyValueRemove(host: host, key: pick(Self.keys)))
            case 70..<77:
                steps.append(cut.contains(host) ? .restore(host: host) : .cut(host: host))
                if !cut.insert(host).inserted { cut.remove(host) }
            case 77..<82:
                steps.append(killed.contains(host) ? .restart(host: host) : .kill(host: host))
                if !killed.insert(host).inserted { killed.remove(host) }
            default: steps.append(.pause(milliseconds: Int(random.next() % 1500)))
            }
        }
        steps += cut.sorted().map { .restore(host: $0) } + killed.sorted().map { .restart(host: $0) }
        self.steps = steps
    }

    /// The schedule, one numbered step per line, for a failure message.
    public var listing: String {
        "seed \(seed), \(hosts) hosts, \(steps.count) steps:\n"
            + steps.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
    }
}
