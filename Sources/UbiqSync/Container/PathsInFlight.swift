import UbiqModel

/// The paths that running pull passes have taken on. A later pass leaves alone each of
/// them, the folders above them and everything below them, so two passes never apply
/// changes that depend on each other, and a pass stalled on a peer that never sends does
/// not hold up changes that another pass can apply. Paths are compared case-folded, so two
/// passes never create case twins side by side.
struct PathsInFlight: Sendable {
    private(set) var paths: Set<RelativePath> = []
    /// Case-folded taken paths, with how many taken paths fold to each.
    private var folded: [String: Int] = [:]
    /// Case-folded folders above taken paths, with how many taken paths lie below each.
    private var folders: [String: Int] = [:]

    var isEmpty: Bool { paths.isEmpty }

    /// True when no taken path is `path`, lies above it or lies below it.
    func isFree(_ path: RelativePath) -> Bool {
        guard !paths.isEmpty else { return true }
        let key = path.caseFolded
        if folded[key] != nil || folders[key] != nil { return false }
        return !Self.folders(above: key).contains { folded[$0] != nil }
    }

    /// True when a taken path lies below `folder`.
    func holdsSomething(inside folder: RelativePath) -> Bool {
        !paths.isEmpty && folders[folder.caseFolded] != nil
    }

    mutating func take(_ taken: some Sequence<RelativePath>) {
        for path in taken where paths.insert(path).inserted {
            let key = path.caseFolded
            folded[key, default: 0] += 1
            for folder in Self.folders(above: key) { folders[folder, default: 0] += 1 }
        }
    }

    /// Gives paths back; giving back one that is not taken does nothing.
    mutating func release(_ released: some Sequence<RelativePath>) {
        for path in released where paths.remove(path) != nil {
            let key = path.caseFolded
            Self.decrement(&folded, key)
            for folder in Self.folders(above: key) { Self.decrement(&folders, folder) }
        }
    }

    private static func decrement(_ counts: inout [String: Int], _ key: String) {
        if let count = counts[key], count > 1 { counts[key] = count - 1 } else { counts[key] = nil }
    }

    /// `a/b/c` → `a/b`, `a`.
    private static func folders(above key: String) -> [String] {
        var result: [String] = []
        var rest = Substring(key)
        while let slash = rest.lastIndex(of: "/") {
            rest = rest[..<slash]
            result.append(String(rest))
        }
        return result
    }
}
