import UbiqModel

/// A receive-only container's own changes, kept out of the index so that they are never
/// announced: what each changed path holds on disk now. A path leaves when the index is
/// written there (the account's version put back by a revert, or a peer's newer version
/// applied over it), or when a scan finds it as the account has it again.
struct HeldChanges: Sendable {
    /// What is on disk at a changed path; `found` nil where this device deleted it.
    struct Change: Sendable, Equatable {
        var found: Item?
        var stat: FileStat?
    }

    private(set) var changes: [RelativePath: Change] = [:]

    var isEmpty: Bool { changes.isEmpty }

    subscript(path: RelativePath) -> Change? { changes[path] }

    /// The stats the scanner compares with instead of the index's, so that a changed file is
    /// not hashed again while it stays as found.
    var stats: [RelativePath: FileStat] { changes.compactMapValues(\.stat) }

    /// A scan of `roots` (nil: everything) found `held` changed, and saw `unchanged` as they
    /// were when held; every other change under those roots is gone.
    mutating func scanned(_ roots: [RelativePath?], held: [RelativePath: Change], unchanged: Set<RelativePath>) {
        let whole = roots.contains(nil)
        let under = roots.compactMap { $0 }
        for path in changes.keys where whole || under.contains(where: { path.isInside($0) }) {
            if !unchanged.contains(path) { changes[path] = nil }
        }
        changes.merge(held) { _, new in new }
    }

    /// The index now describes what is on disk at `paths`.
    mutating func settled(_ paths: some Sequence<RelativePath>) {
        guard !changes.isEmpty else { return }
        for path in paths { changes[path] = nil }
    }
}
