import UbiqModel

/// Which items a query reports: present files and symbolic links (not folders, not
/// deleted items) in its scope whose name matches its glob.
public struct QueryPredicate: Hashable, Sendable {
    public var scope: QueryScope
    public var glob: NameGlob?

    public init(scope: QueryScope = .documents, glob: NameGlob? = nil) {
        self.scope = scope
        self.glob = glob
    }

    /// The predicate `params` describe; throws when the glob cannot be used.
    public init(_ params: QueryStartParams) throws(NameGlobError) {
        self.init(scope: params.scope, glob: try params.glob.map { pattern throws(NameGlobError) in
            try NameGlob(pattern, ignoreCase: params.ignoreCase)
        })
    }

    /// The folder that holds every match, nil for the whole container.
    public var root: RelativePath? {
        scope == .documents ? try? RelativePath(QueryScope.documentsFolder) : nil
    }

    public func matches(_ item: Item) -> Bool {
        !item.deleted && item.kind != .directory && scope.contains(item.path)
            && (glob?.matches(String(item.path.name)) ?? true)
    }
}
