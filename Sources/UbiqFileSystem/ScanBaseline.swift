import UbiqModel

/// What the scanner needs to know of the previous state: the stat facts recorded when a path
/// was last hashed (the index implements it; tests use a dictionary).
public protocol ScanBaseline {
    func stat(of path: RelativePath) -> FileStat?
    /// What the package at `path` held when last read, so that its unchanged files are not
    /// hashed again; nil where none was.
    func package(at path: RelativePath) -> PackageContent?
    /// Whether the scan's `seen` is to hold `path` (the index knows it, so its absence would
    /// be a deletion); a new path is counted, not kept, so a first index of a large tree
    /// holds no set of every path it found.
    func tracks(_ path: RelativePath) -> Bool
}

extension ScanBaseline {
    public func package(at path: RelativePath) -> PackageContent? { nil }
    public func tracks(_ path: RelativePath) -> Bool { true }
}

/// No previous state: every file is hashed.
public struct EmptyScanBaseline: ScanBaseline, Sendable {
    public init() {}
    public func stat(of path: RelativePath) -> FileStat? { nil }
}

extension Dictionary: ScanBaseline where Key == RelativePath, Value == FileStat {
    public func stat(of path: RelativePath) -> FileStat? { self[path] }
}
