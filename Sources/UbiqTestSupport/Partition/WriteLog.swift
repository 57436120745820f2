import UbiqChunking

/// One version of a document that a client wrote: where, and the SHA-256 of its bytes
/// (hex, as ``TreeDigest`` gives it).
public struct WrittenVersion: Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let hash: String

    public init(path: String, hash: String) {
        self.path = path
        self.hash = hash
    }

    public var description: String { "\(path) @\(hash.prefix(12))" }
}

/// What every host holds once the system has settled: the tree (``TreeDigest``) and, per
/// document path, the content hashes of its unresolved conflict versions.
public struct SettledState: Sendable, Equatable {
    public var tree: [String: String]
    public var conflicts: [String: Set<String>]

    public init(tree: [String: String], conflicts: [String: Set<String>]) {
        self.tree = tree
        self.conflicts = conflicts
    }
}

/// The randomized partition test's own record of every version a client wrote and of which
/// versions a later write was based on, checked against DESIGN.md §8's "nothing lost": each
/// version written is superseded by a causally later write, or is current, or is kept as a
/// conflict version. A write is causally later when its client saw the version it replaces
/// (it read it from that device's disk under a write lease, or that device's agent was down).
public struct WriteLog: Sendable {
    /// Each version written, with the step that wrote it.
    public private(set) var written: [WrittenVersion: String] = [:]
    /// Versions a later write replaced, renamed or deleted after seeing them.
    public private(set) var superseded: Set<WrittenVersion> = []

    public init() {}

    /// Records `version` written by `step`; `replacing` is what the writer saw at that path.
    public mutating func wrote(_ version: WrittenVersion, step: String, replacing: WrittenVersion? = nil) {
        if written[version] == nil { written[version] = step }
        if let replacing { superseded.insert(replacing) }
    }

    /// Records that a client deleted, or moved away, the version it saw at a path.
    public mutating func removed(_ version: WrittenVersion) {
        superseded.insert(version)
    }

    /// Every way the settled state breaks "nothing lost, nothing made up", one line each;
    /// empty when it holds.
    public func violations(in state: SettledState) -> [String] {
        var problems: [String] = []
        for (version, step) in written.sorted(by: { $0.key.description < $1.key.description })
        where !superseded.contains(version) {
            let current = state.tree[version.path].map { Self.content(of: $0) }
            if current == version.hash || state.conflicts[version.path, default: []].contains(version.hash) { continue }
            problems.append("lost: \(version), written by \(step), is neither current nor a conflict version, and no later write saw it")
        }
        let writtenHashes = Dictionary(grouping: written.keys, by: \.path).mapValues { Set($0.map(\.hash)) }
        for (path, entry) in state.tree.sorted(by: { $0.key < $1.key }) where entry != "dir" && !entry.hasPrefix("link:") {
            if !writtenHashes[path, default: []].contains(Self.content(of: entry)) {
                problems.append("made up: \(path) holds \(entry.prefix(12)), which no client wrote at that path")
            }
        }
        for (path, hashes) in state.conflicts.sorted(by: { $0.key < $1.key }) {
            for hash in hashes.sorted() where !writtenHashes[path, default: []].contains(hash) {
                problems.append("made up: a conflict version of \(path) holds \(hash.prefix(12)), which no client wrote there")
            }
        }
        return problems
    }

    /// A file's entry of a ``TreeDigest`` without what it says of permissions: its content hash.
    static func content(of entry: String) -> String {
        String(entry.prefix { $0 != "+" && $0 != " " })
    }

    /// The name prefix of `path`'s conflict versions in `.ubiq/versions/` (DESIGN.md §3).
    public static func conflictPrefix(of path: String) -> String {
        ChunkHasher.hash(Array(path.utf8)).hex + "-"
    }
}
