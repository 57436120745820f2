import UbiqModel

/// What the scanner needs to know of the previous state: the stat facts recorded when a path
/// was last hashed (the index implements it; tests use a dictionary).
public protocol ScanBaseline {
    func stat(of path: RelativePath) -> FileStat?
}

/// No previous state: every file is hashed.
public struct EmptyScanBaseline: ScanBaseline, Sendable {
    public init() {}
    public func stat(of path: RelativePath) -> FileStat? { nil }
}

extension Dictionary: ScanBaseline where Key == RelativePath, Value == FileStat {
    public func stat(of path: RelativePath) -> FileStat? { self[path] }
}
