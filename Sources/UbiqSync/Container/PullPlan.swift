import UbiqModel

/// The needs one pull pass took on, in the order it applies them: folders before what they
/// hold, deletions last and deepest first (a renamed file's chunks are still on disk when
/// its new name is written), runs of folders and small files as groups applied together,
/// and what failed before after everything else, each alone, so it holds up no group of
/// changes that would go through.
struct PullPlan: Sendable, Equatable {
    /// Groups of two or more are applied together; a step of one goes alone.
    let steps: [[Item]]
    /// The paths of every step.
    var taken: [RelativePath] { steps.flatMap { $0.map(\.path) } }

    /// Files up to this size, and folders, are applied in groups of up to ``groupSize``.
    static let smallFileSize: UInt64 = 1 << 20
    static let groupSize = 256

    init(needs: [Item], failing: Set<RelativePath>) {
        steps = Self.steps(Self.order(needs.filter { !failing.contains($0.path) }))
            + Self.order(needs.filter { failing.contains($0.path) }).map { [$0] }
    }

    /// Splits an apply order into steps: runs of folders and small files become groups;
    /// everything else (links, large files, deletions) goes alone, in order.
    static func steps(_ ordered: [Item]) -> [[Item]] {
        var steps: [[Item]] = []
        var group: [Item] = []
        for item in ordered {
            if !item.deleted && (item.kind == .directory || (item.kind == .file && item.size <= smallFileSize)) {
                group.append(item)
                if group.count == groupSize {
                    steps.append(group)
                    group = []
                }
            } else {
                if !group.isEmpty { steps.append(group) }
                group = []
                steps.append([item])
            }
        }
        if !group.isEmpty { steps.append(group) }
        return steps
    }

    static func order(_ needs: [Item]) -> [Item] {
        func depth(_ item: Item) -> Int { item.path.rawValue.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) } }
        let present = needs.filter { !$0.deleted }.map { (key: ($0.kind == .directory ? 0 : 1, depth($0), $0.path), item: $0) }
            .sorted { $0.key < $1.key }.map(\.item)
        let deleted = needs.filter(\.deleted).map { (key: (depth($0), $0.path), item: $0) }
            .sorted { $0.key > $1.key }.map(\.item)
        return present + deleted
    }
}
