/// Which folders are file packages: those whose name ends in one of the configured
/// extensions (`package_extensions`, compared without regard to case), at any depth. A
/// package inside a package is part of the outer one's content.
public struct PackageRules: Hashable, Sendable {
    /// Lower case, without the dot.
    public let extensions: Set<String>

    public static let none = PackageRules(extensions: [])

    public init(extensions: some Sequence<String>) {
        self.extensions = Set(extensions.map { $0.lowercased() })
    }

    /// Whether a folder of this name is a package: a name with something before its last dot
    /// (`.pages` alone is a hidden folder, not a package) and a listed extension after it.
    public func isPackageName(_ name: Substring) -> Bool {
        guard !extensions.isEmpty, let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// The outermost package `path` lies inside (not `path` itself), where one of its
    /// folders has a package's name.
    public func package(containing path: RelativePath) -> RelativePath? {
        guard !extensions.isEmpty else { return nil }
        var prefix = ""
        for component in path.components.dropLast() {
            prefix += prefix.isEmpty ? String(component) : "/" + component
            if isPackageName(component) { return try? RelativePath(prefix) }
        }
        return nil
    }
}
