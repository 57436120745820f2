import UbiqModel

/// Finds paths that differ only in case, which would overwrite each other on a
/// case-insensitive file system: ubiq reports them as case conflicts instead.
public enum CaseCollisions {
    /// Groups of two or more paths with the same case-folded form, each group sorted, the
    /// groups in order of their first path. Forms are compared as bytes: names that differ
    /// only in Unicode normalization are two files, not a clash.
    public static func find(in paths: [RelativePath]) -> [[RelativePath]] {
        var groups: [[UInt8]: [RelativePath]] = [:]
        for path in paths {
            groups[Array(path.caseFolded.utf8), default: []].append(path)
        }
        return groups.values
            .map { Array(Set($0)).sorted() }
            .filter { $0.count > 1 }
            .sorted { $0[0] < $1[0] }
    }
}
