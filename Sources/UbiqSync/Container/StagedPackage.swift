import UbiqModel

/// A file package's new version being built in the container's `.ubiq/tmp/`, to be put in
/// place whole by ``ContainerDisk/commitPackage(_:to:expected:)``. Members are added in
/// path order, folders before what they hold.
public protocol StagedPackage: Sendable {
    func addFolder(_ member: PackageMember) throws
    func addLink(_ member: PackageMember) throws
    /// Moves a complete staged file in as `member`, with its metadata.
    func addFile(_ member: PackageMember, from staged: any StagedFile) throws
    /// Adds `member` as the file at `source` in the container, which holds its bytes and
    /// metadata (the caller checked): shared, not copied, where the file system can; hard
    /// linked only where `linkable` (never where the tree in place is to be kept: an edit in
    /// place of one would change both).
    func addFile(_ member: PackageMember, sharing source: RelativePath, linkable: Bool) throws
    /// Gives the folders (and the package's own, `package`) their metadata, once all is in.
    func finishFolders(_ members: [PackageMember], package: PackageMember) throws
    /// Removes what was staged; nothing happens after a commit.
    func discard()
}

/// A package as read from disk for the engine: what it holds and the fingerprint the index
/// records for it (``ContainerDisk/readPackage(_:previous:)``).
public struct PackageOnDisk: Sendable {
    public var content: PackageContent
    public var stat: FileStat

    public init(content: PackageContent, stat: FileStat) {
        self.content = content
        self.stat = stat
    }
}
