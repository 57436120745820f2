import UbiqModel

/// What the scanner needs to know of the previous state: the stat facts recorded when a path
/// was last hashed (the index implements it; tests use a dictionary).
public protocol ScanBaseline {
    func stat(of path: RelativePath) -> FileStat?
    /// What the package at `path` held when last read, so that its unchanged files are not
    /// hashed again; nil where none was.
    func package(at path: RelativePath) -> PackageContent?
    /// The baseline's own copy of `path` where the scan's `seen` is to hold it (the index
    /// knows it, so its absence would be a deletion), which `seen` keeps, sharing its storage;
    /// nil for a new path, which is counted, not kept: a first index of a large tree holds no
    /// set of every path it found, and a rescan no second copy of every name.
    func known(_ path: RelativePath) -> RelativePath?
    /// How many paths `known` knows at most, for the scan's `seen` to hold them without
    /// growing a million times.
    var knownCount: Int { get }
}

extension ScanBaseline {
    public func package(at path: RelativePath) -> PackageContent? { nil }
    public func known(_ path: RelativePath) -> RelativePath? { path }
    public var knownCount: Int { 0 }
}

/// No previous state: every file is hashed.
public struct EmptyScanBaseline: ScanBaseline, Sendable {
    public init() {}
    public func stat(of path: RelativePath) -> FileStat? { nil }
}

extension Dictionary: ScanBaseline where Key == RelativePath, Value == FileStat {
    public func stat(of path: RelativePath) -> FileStat? { self[path] }
}
