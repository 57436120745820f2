import UbiqModel

/// Decides whether a symbolic link stays inside its container, so links to elsewhere on one
/// workstation can be reported instead of being synced as if they meant the same on another.
public enum SymlinkPolicy {
    /// True where `target`, resolved lexically from the link's folder, names the container
    /// root or a path below it outside `.ubiq/`. Absolute targets, and targets whose `..`
    /// climb above the root, are not contained.
    public static func isContained(linkPath: RelativePath, target: String) -> Bool {
        guard !target.isEmpty, !target.hasPrefix("/") else { return false }
        var stack = Array(linkPath.components.dropLast())
        for component in target.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..":
                if stack.isEmpty { return false }
                stack.removeLast()
            default: stack.append(component)
            }
        }
        return stack.first.map { $0 != RelativePath.agentFolder } ?? true
    }
}
