#if canImport(Glibc)
import Glibc
#endif
import UbiqModel

/// A file package's new version being built in `.ubiq/tmp/`, to replace the package whole
/// (``SafeFileSystem/exchange(_:into:)``): members are added in path order, folders before
/// what they hold; a changed file comes from a staged temp file, an unchanged one shares the
/// bytes of the file the package holds now. Nothing of it is visible until the exchange; a
/// crash leaves it in `.ubiq/tmp/`, which the next start empties.
public final class PackageStaging: Sendable {
    /// Its name in `.ubiq/tmp/`.
    public let name: String
    let root: OwnedDescriptor
    let fileSystem: SafeFileSystem

    init(name: String, root: OwnedDescriptor, fileSystem: SafeFileSystem) {
        self.name = name
        self.root = root
        self.fileSystem = fileSystem
    }

    private func display(_ path: RelativePath) -> String { ContainerLayout.temporaryName + "/" + name + "/" + path.rawValue }

    /// The staged folder that holds `path`: staged folders only, never following a link.
    private func parent(of path: RelativePath) throws(FileSystemError) -> OwnedDescriptor {
        var folder = root
        var shown = ""
        for component in path.components.dropLast() {
            shown += shown.isEmpty ? String(component) : "/" + component
            folder = try fileSystem.openFolder(String(component), in: folder.fd, create: false,
                                               display: ContainerLayout.temporaryName + "/" + name + "/" + shown)
        }
        return folder
    }

    public func addFolder(_ member: PackageMember) throws(FileSystemError) {
        let parent = try parent(of: member.path)
        guard mkdirat(parent.fd, String(member.path.name), 0o700) == 0 else { throw .posix(errno, "create folder", display(member.path)) }
    }

    public func addLink(_ member: PackageMember) throws(FileSystemError) {
        let parent = try parent(of: member.path)
        let name = String(member.path.name)
        guard symlinkat(member.symlinkTarget ?? "", parent.fd, name) == 0 else { throw .posix(errno, "create link", display(member.path)) }
        try fileSystem.setTimes(name, in: parent.fd, mtimeNs: member.mtime, display: display(member.path))
    }

    /// Moves a complete temp file in as `member`, with its permissions, attributes and mtime,
    /// made durable first.
    public func addFile(_ member: PackageMember, from file: TempFile) throws(FileSystemError) {
        do throws(FileSystemError) {
            try fileSystem.finish(file.fd, permissions: member.permissions, mtimeNs: member.mtime, attributes: member.attributes,
                                  display: display(member.path))
            guard fsync(file.fd) == 0 else { throw .posix(errno, "fsync", file.path) }
            let temporary = try fileSystem.agentFolder(ContainerLayout.temporaryName)
            let parent = try parent(of: member.path)
            guard renameat(temporary.fd, file.name, parent.fd, String(member.path.name)) == 0 else {
                throw .posix(errno, "move into a staged package", display(member.path))
            }
            file.close()
        } catch {
            fileSystem.discard(file)
            throw error
        }
    }

    /// Adds `member` as the file at `source` in the container, whose bytes and metadata it
    /// has (the caller checked): its extents shared where the file system can (btrfs, xfs),
    /// else a hard link to it where `linkable`, else a copy. A linked file is one file in both
    /// versions, so an edit in place of the new one shows in the old tree too: a tree kept in
    /// the history is never linked to.
    public func addFile(_ member: PackageMember, sharing source: RelativePath, linkable: Bool) throws(FileSystemError) {
        let sourceParent = try fileSystem.parentFolder(of: source, create: false)
        let sourceName = String(source.name)
        let parent = try parent(of: member.path)
        let name = String(member.path.name)
        let input = openat(sourceParent.fd, sourceName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
        guard input >= 0 else { throw .posix(errno, "open", source.rawValue) }
        defer { close(input) }
        let output = openat(parent.fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw .posix(errno, "create", display(member.path)) }
        if LinuxCalls.clone(from: input, to: output) {
            defer { close(output) }
            try fileSystem.finish(output, permissions: member.permissions, mtimeNs: member.mtime, attributes: member.attributes,
                                  display: display(member.path))
            guard fsync(output) == 0 else { throw .posix(errno, "fsync", display(member.path)) }
            return
        }
        close(output)
        unlinkat(parent.fd, name, 0)
        if linkable {
            guard linkat(sourceParent.fd, sourceName, parent.fd, name, 0) == 0 else {
                throw .posix(errno, "link", display(member.path))
            }
            return
        }
        var st = stat()
        guard fstat(input, &st) == 0 else { throw .posix(errno, "fstat", source.rawValue) }
        let copy = try fileSystem.makeTempFile()
        do throws(FileSystemError) {
            try copy.copy(from: input, at: 0, length: UInt64(st.st_size), to: 0)
        } catch {
            fileSystem.discard(copy)
            throw error
        }
        try addFile(member, from: copy)
    }

    /// Gives the staged folders (and the package folder itself, `package`) their
    /// permissions, attributes and mtimes, deepest first, once everything is in them.
    public func finishFolders(_ members: [PackageMember], package: PackageMember) throws(FileSystemError) {
        for member in members.reversed() where member.kind == .directory {
            let parent = try parent(of: member.path)
            try setFolder(String(member.path.name), in: parent.fd, member, display: display(member.path))
        }
        let temporary = try fileSystem.agentFolder(ContainerLayout.temporaryName)
        try setFolder(name, in: temporary.fd, package, display: ContainerLayout.temporaryName + "/" + name)
    }

    private func setFolder(_ name: String, in parent: Int32, _ member: PackageMember, display: String) throws(FileSystemError) {
        let fd = openat(parent, name, Posix.directoryFlags)
        guard fd >= 0 else { throw .posix(errno, "open folder", display) }
        defer { close(fd) }
        try fileSystem.finish(fd, permissions: member.permissions, mtimeNs: member.mtime, attributes: member.attributes,
                              display: display, inPlace: true)
    }
}

/// What an exchange left behind.
public enum PackageSwap: Sendable, Equatable {
    /// Nothing was at the path.
    case created
    /// The package's previous tree, now at this name in `.ubiq/tmp/`: for the history, or to remove.
    case replaced(previous: String)
}

extension SafeFileSystem {
    /// An empty folder in `.ubiq/tmp/` to build a package's new version in.
    public func stagePackage() throws(FileSystemError) -> PackageStaging {
        let temporary = try agentFolder(ContainerLayout.temporaryName)
        while true {
            let name = Self.randomName(prefix: "k")
            if mkdirat(temporary.fd, name, 0o700) == 0 {
                return PackageStaging(name: name, root: try openFolder(name, in: temporary.fd, create: false, display: name), fileSystem: self)
            }
            if errno != EEXIST { throw .posix(errno, "create a staging folder in", layout.temporaryFolder) }
        }
    }

    /// Puts a staged package at `path` in one step: made durable, then exchanged with the
    /// folder there (`renameat2(RENAME_EXCHANGE)`: a reader sees the old tree or the new one,
    /// never a mix), or moved in where nothing is; the parent folder made durable after.
    /// Missing parent folders are created. Whatever is at `path` must be a folder.
    public func exchange(_ staging: PackageStaging, into path: RelativePath) throws(FileSystemError) -> PackageSwap {
        let temporary = try agentFolder(ContainerLayout.temporaryName)
        if !LinuxCalls.syncFileSystem(staging.root.fd) { sync() }
        let parent = try parentFolder(of: path, create: true)
        let name = String(path.name)
        beforeExchange?(path)
        let swap: PackageSwap
        if let st = Posix.lstat(at: parent.fd, name) {
            guard Posix.kind(of: st.st_mode) == .directory else {
                throw FileSystemError(.alreadyExists, "'\(path)' is not a folder; a package cannot replace it whole")
            }
            guard LinuxCalls.renameExchange(temporary.fd, staging.name, parent.fd, name) == 0 else {
                throw .posix(errno, "exchange the package at", path.rawValue)
            }
            swap = .replaced(previous: staging.name)
        } else {
            guard LinuxCalls.renameNoReplace(temporary.fd, staging.name, parent.fd, name) == 0 else {
                throw .posix(errno, "move the package to", path.rawValue)
            }
            swap = .created
        }
        guard fsync(parent.fd) == 0 else { throw .posix(errno, "fsync the folder of", path.rawValue) }
        afterExchange?(path)
        return swap
    }

    /// Removes a tree left in `.ubiq/tmp/` (a package's previous version, or a staging given up).
    public func removeStaged(_ name: String) throws(FileSystemError) {
        let temporary = try agentFolder(ContainerLayout.temporaryName)
        try removeTree(Posix.cName(Array(name.utf8)), in: temporary.fd, display: layout.temporaryFolder)
    }
}

extension SafeFileSystem {
    /// Reads the package folder at `path` whole (``PackageReader``), opened without following
    /// a link; `.notFound` (as `.failed`) where no folder is there.
    public func readPackage(_ path: RelativePath, reader: PackageReader, previous: PackageContent?) throws(PackageReadError) -> PackageReading {
        let folder = try openPackage(path)
        return try withExtendedLifetime(folder) { () throws(PackageReadError) in
            try reader.read(folder.fd, name: path.rawValue, previous: previous)
        }
    }

    /// The package's fingerprint, or its stamp without `changeTimes`
    /// (``PackageReader/fingerprint(_:name:changeTimes:)``); nil where no folder is there.
    public func packageFingerprint(_ path: RelativePath, reader: PackageReader, changeTimes: Bool) throws(PackageReadError) -> FileStat? {
        let folder: OwnedDescriptor
        do { folder = try openPackage(path) } catch {
            if case .failed(let failure) = error, [.notFound, .notADirectory, .escapesContainer].contains(failure.code) { return nil }
            throw error
        }
        return try withExtendedLifetime(folder) { () throws(PackageReadError) in try reader.fingerprint(folder.fd, name: path.rawValue, changeTimes: changeTimes) }
    }

    /// Takes the folder at `path` away whole: moved into `.ubiq/tmp/` in one step (it is gone
    /// from the container at once), then removed there.
    public func removeTree(_ path: RelativePath) throws(FileSystemError) {
        let name = Self.randomName(prefix: "k")
        try moveTree(path, into: ContainerLayout.temporaryName, as: name)
        try removeStaged(name)
    }

    /// Moves the folder at `path` into the agent's folder `folder` as `name`, in one step,
    /// both folders made durable after.
    private func moveTree(_ path: RelativePath, into folder: String, as name: String) throws(FileSystemError) {
        let target = try agentFolder(folder)
        let parent = try parentFolder(of: path, create: false)
        guard LinuxCalls.renameNoReplace(parent.fd, String(path.name), target.fd, name) == 0 else {
            throw .posix(errno, "move into .ubiq/\(folder) the folder", path.rawValue)
        }
        guard fsync(parent.fd) == 0, fsync(target.fd) == 0 else { throw .posix(errno, "fsync the folder of", path.rawValue) }
    }

    private func openPackage(_ path: RelativePath) throws(PackageReadError) -> OwnedDescriptor {
        do {
            let parent = try parentFolder(of: path, create: false)
            return try openFolder(String(path.name), in: parent.fd, create: false, display: path.rawValue)
        } catch {
            throw .failed(error)
        }
    }
}

extension SafeFileSystem {
    /// Stores a staged package as a version of `path` (a losing side of a conflict), made
    /// durable first, replacing an older copy of the same version.
    public func commitToVersions(_ staging: PackageStaging, path: RelativePath, id: String) throws(FileSystemError) {
        let name = try Self.versionName(of: path, id: id)
        if !LinuxCalls.syncFileSystem(staging.root.fd) { sync() }
        let temporary = try agentFolder(ContainerLayout.temporaryName)
        let versions = try agentFolder(ContainerLayout.versionsName)
        if Posix.lstat(at: versions.fd, name) != nil {
            try removeTree(Posix.cName(Array(name.utf8)), in: versions.fd, display: layout.versionsFolder)
        }
        guard renameat(temporary.fd, staging.name, versions.fd, name) == 0 else {
            throw .posix(errno, "store a package version of", path.rawValue)
        }
        _ = fsync(versions.fd)
    }

    /// Opens a file inside a stored package version (`member` inside the version named
    /// `name`) for reading, following no link; the caller closes the descriptor.
    public func openVersionMember(named name: String, member: RelativePath) throws(FileSystemError) -> Int32 {
        try openMember(of: name, in: ContainerLayout.versionsName, display: layout.versionsFolder, member: member)
    }

    /// Opens a file inside a package kept in the history (`member` inside the entry named `name`).
    public func openHistoryMember(named name: String, member: RelativePath) throws(FileSystemError) -> Int32 {
        try openMember(of: name, in: ContainerLayout.historyName, display: layout.historyFolder, member: member)
    }

    private func openMember(of name: String, in folderName: String, display: String, member: RelativePath) throws(FileSystemError) -> Int32 {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw FileSystemError(.invalidName, "'\(name)' is not the name of a kept version")
        }
        var folder = try agentFolder(folderName)
        var shown = display
        for component in [Substring(name)] + member.components.dropLast() {
            shown += "/" + component
            folder = try openFolder(String(component), in: folder.fd, create: false, display: shown)
        }
        let fd = openat(folder.fd, String(member.name), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw .posix(errno, "open", shown + "/" + member.name) }
        return fd
    }

    /// Moves a tree left in `.ubiq/tmp/` (a package's previous version) into the history as `name`.
    public func keepStagedInHistory(_ staged: String, as name: String) throws(FileSystemError) {
        let temporary = try agentFolder(ContainerLayout.temporaryName)
        let history = try agentFolder(ContainerLayout.historyName)
        guard renameat(temporary.fd, staged, history.fd, name) == 0 else { throw .posix(errno, "keep in the history", name) }
        _ = fsync(history.fd)
    }

    /// Takes the folder at `path` away whole into the history as `name`, in one step, its
    /// files made durable first: the history keeps what the index says it keeps.
    public func removeTreeKeeping(_ path: RelativePath, as name: String) throws(FileSystemError) {
        let parent = try parentFolder(of: path, create: false)
        let folder = try openFolder(String(path.name), in: parent.fd, create: false, display: path.rawValue)
        if !LinuxCalls.syncFileSystem(folder.fd) { sync() }
        try moveTree(path, into: ContainerLayout.historyName, as: name)
    }
}
