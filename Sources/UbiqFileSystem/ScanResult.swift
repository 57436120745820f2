import UbiqModel

/// What one scan found. A path absent from `seen` but known to the index was deleted,
/// except under a path listed in `failures`, where nothing can be concluded.
public struct ScanResult: Sendable {
    /// New paths and paths whose stat facts differ from the baseline; files carry fresh chunks.
    public var changed: [LocalEntry] = []
    /// Every syncable path that exists in the scanned scope, changed or not, that the
    /// baseline knows (``ScanBaseline/known(_:)``).
    public var seen: Set<RelativePath> = []
    /// How many syncable paths exist in the scanned scope, known or not.
    public var entries = 0
    /// Files that changed while they were hashed; scan them again once they settle.
    public var unstable: [RelativePath] = []
    /// Paths that could not be read (permissions, I/O); their subtrees are unknown.
    public var failures: [ScanFailure] = []
    /// Names skipped because they are not valid container paths, with the folder they are in;
    /// bytes that are not UTF-8 shown as `\xFF` (``NameBytes``).
    public var invalidNames: [String] = []
    /// How many files were hashed, and how many bytes: the work the baseline did not save.
    public var filesHashed = 0
    public var bytesHashed: UInt64 = 0
    /// Files seen with more than one name (hard links), with their inode.
    public var linked: [RelativePath: UInt64] = [:]
    /// Files and folders whose `user.` attributes pass ``ExtendedAttributes/limit``, with
    /// their size: they sync without a change of attributes.
    public var oversizedAttributes: [RelativePath: Int] = [:]
    /// Paths left out by the ignore rules, with the deciding line; not what is inside an
    /// ignored folder, which is never walked.
    public var ignored: [RelativePath: IgnorePattern] = [:]
    /// What inside a package does not travel with it, and why (a link leading out of it, a
    /// socket): the package syncs without it.
    public var leftOutOfPackages: [(path: String, reason: String)] = []

    public init() {}
}

/// One path the scanner could not read.
public struct ScanFailure: Sendable, Equatable {
    public var path: RelativePath
    public var error: FileSystemError
    /// What is there, where the scanner got as far as seeing it.
    public var kind: ItemKind?

    public init(path: RelativePath, error: FileSystemError, kind: ItemKind? = nil) {
        self.path = path
        self.error = error
        self.kind = kind
    }
}
