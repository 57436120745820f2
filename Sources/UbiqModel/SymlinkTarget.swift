/// The rule for symlinks ubiq syncs: the link text must stay inside the container when
/// resolved lexically from the link's folder, so a synced link never leads out of it.
public enum SymlinkTarget {
    public static func staysInside(linkPath: String, target: String) -> Bool {
        guard !target.hasPrefix("/") else { return false }
        var depth = linkPath.split(separator: "/").count - 1
        for component in target.split(separator: "/", omittingEmptySubsequences: true) {
            if component == ".." {
                depth -= 1
                if depth < 0 { return false }
            } else if component != "." {
                if depth == 0 && component == RelativePath.agentFolder { return false }
                depth += 1
            }
        }
        return true
    }
}
