#if canImport(Glibc)
import Glibc
#endif
import UbiqChunking
import UbiqModel

/// A file package as read from disk: what it holds, and a fingerprint of the whole tree
/// that changes with anything inside, so the next scan reads it again only then.
public struct PackageReading: Sendable {
    public var content: PackageContent
    /// The bytes of its files, the latest mtime and ctime of anything in it, and in place of
    /// an inode a digest of every entry's name, inode, size and times (with the folder's own):
    /// two changes inside within one tick of the file system's clock still differ.
    public var fingerprint: FileStat
    public var filesHashed = 0
    public var bytesHashed: UInt64 = 0
    /// What inside does not travel with the package, and why: a link that leads out of it,
    /// a socket or device.
    public var leftOut: [(path: String, reason: String)] = []
}

/// Why a package could not be read as a whole; the scan reports it and leaves the package's
/// last synced version as it is.
public enum PackageReadError: Error, Sendable {
    /// Something inside changed while it was read: read it again later.
    case changing(String)
    /// A part cannot be read (or has a name that is not UTF-8).
    case failed(FileSystemError)
}

/// Reads a package folder for the scanner: every folder, file and link below it, each file
/// chunked unless `previous` lists it with the same size and mtime. Never follows a link.
public struct PackageReader: Sendable {
    public let chunker: FileChunker
    public var readsAttributes = true

    public init(chunker: FileChunker = FileChunker(), readsAttributes: Bool = true) {
        self.chunker = chunker
        self.readsAttributes = readsAttributes
    }

    /// `folder`: an open descriptor of the package folder; `name`: its path, for messages.
    public func read(_ folder: Int32, name: String, previous: PackageContent?) throws(PackageReadError) -> PackageReading {
        var own = stat()
        guard fstat(folder, &own) == 0 else { throw .failed(.posix(errno, "fstat", name)) }
        var walk = PackageWalk(reader: self, name: name, previous: previous, root: FileStat(own))
        try walk.visitChildren(of: folder, prefix: nil)
        let content: PackageContent
        do { content = try PackageContent(files: walk.files) } catch {
            throw .failed(FileSystemError(.invalidName, "package '\(name)' cannot be described: \(error.reason)"))
        }
        return PackageReading(content: content, fingerprint: walk.fingerprint(size: content.size), filesHashed: walk.filesHashed,
                              bytesHashed: walk.bytesHashed, leftOut: walk.leftOut)
    }

    /// The fingerprint ``read(_:name:previous:)`` gives, from the entries' stat facts alone (no
    /// file is opened): whether a package is still as it was read. Without `changeTimes` it is
    /// the package's stamp: what changes with any write inside but not with a new hard link
    /// to one of its files, while a new version that shares its files is staged.
    public func fingerprint(_ folder: Int32, name: String, changeTimes: Bool) throws(PackageReadError) -> FileStat {
        var own = stat()
        guard fstat(folder, &own) == 0 else { throw .failed(.posix(errno, "fstat", name)) }
        var walk = PackageWalk(reader: self, name: name, previous: nil, root: FileStat(own), statsOnly: true, changeTimes: changeTimes)
        try walk.visitChildren(of: folder, prefix: nil)
        return walk.fingerprint(size: walk.fileBytes)
    }
}

/// One reading of one package.
private struct PackageWalk {
    let reader: PackageReader
    let name: String
    let previous: [RelativePath: (member: PackageMember, chunks: [ChunkRef])]
    let root: FileStat
    var files: [(member: PackageMember, chunks: [ChunkRef])] = []
    var latestMtime: Int64
    var latestCtime: Int64
    var digest = TreeDigest64()
    var filesHashed = 0
    var bytesHashed: UInt64 = 0
    var leftOut: [(path: String, reason: String)] = []
    /// Only the fingerprint is wanted: files are not opened, their sizes added up.
    let statsOnly: Bool
    /// Whether change times count (not in a stamp).
    let changeTimes: Bool
    var fileBytes: UInt64 = 0

    init(reader: PackageReader, name: String, previous: PackageContent?, root: FileStat, statsOnly: Bool = false, changeTimes: Bool = true) {
        self.reader = reader
        self.statsOnly = statsOnly
        self.changeTimes = changeTimes
        self.name = name
        self.root = root
        var known: [RelativePath: (member: PackageMember, chunks: [ChunkRef])] = [:]
        if let previous {
            for (index, member) in previous.members.enumerated() where member.kind == .file {
                known[member.path] = (member, previous.fileChunks(of: index))
            }
        }
        self.previous = known
        var root = root
        if !changeTimes { root.ctimeNs = 0 }
        latestMtime = root.mtimeNs
        latestCtime = root.ctimeNs
        digest.add(root)
    }

    func fingerprint(size: UInt64) -> FileStat {
        FileStat(size: size, mtimeNs: latestMtime, ctimeNs: latestCtime, inode: digest.value)
    }

    private func location(_ path: RelativePath) -> String { name + "/" + path.rawValue }

    mutating func visitChildren(of dirfd: Int32, prefix: RelativePath?) throws(PackageReadError) {
        let (names, error) = Posix.directoryEntries(of: dirfd)
        if let error { throw .failed(.posix(error, "read folder", prefix.map(location) ?? name)) }
        for bytes in names {
            guard let entry = String(validating: bytes, as: UTF8.self) else {
                let shown = (prefix.map(location) ?? name) + "/" + NameBytes.escaped(bytes)
                throw .failed(FileSystemError(.invalidName, "'\(shown)' is not a UTF-8 name; rename it for the package to sync"))
            }
            let path: RelativePath
            do { path = try RelativePath(prefix.map { $0.rawValue + "/" + entry } ?? entry) } catch {
                throw .failed(FileSystemError(.invalidName, "'\(name)/\(entry)' cannot be synced: \(error.reason)"))
            }
            try visit(entry, in: dirfd, path: path)
        }
    }

    private mutating func visit(_ entry: String, in dirfd: Int32, path: RelativePath) throws(PackageReadError) {
        var st = stat()
        guard fstatat(dirfd, entry, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { throw .changing(location(path)) }
            throw .failed(.posix(errno, "lstat", location(path)))
        }
        var found = FileStat(st)
        if !changeTimes { found.ctimeNs = 0 }
        latestMtime = max(latestMtime, found.mtimeNs)
        latestCtime = max(latestCtime, found.ctimeNs)
        digest.add(path.rawValue)
        digest.add(found)
        switch Posix.kind(of: st.st_mode) {
        case .directory where statsOnly:
            let fd = openat(dirfd, entry, Posix.directoryFlags)
            guard fd >= 0 else { throw .changing(location(path)) }
            let folder = OwnedDescriptor(fd)
            try withExtendedLifetime(folder) { () throws(PackageReadError) in try visitChildren(of: folder.fd, prefix: path) }
        case .regular where statsOnly:
            fileBytes += found.size
        case .directory:
            let fd = openat(dirfd, entry, Posix.directoryFlags)
            guard fd >= 0 else {
                if errno == ENOENT || errno == ENOTDIR || errno == ELOOP { throw .changing(location(path)) }
                throw .failed(.posix(errno, "open folder", location(path)))
            }
            let folder = OwnedDescriptor(fd)
            files.append((PackageMember(path: path, kind: .directory, mtime: found.mtimeNs,
                                        permissions: Permissions(mode: UInt32(st.st_mode), kind: .directory),
                                        attributes: try attributes(of: folder.fd, path: path)), []))
            try withExtendedLifetime(folder) { () throws(PackageReadError) in try visitChildren(of: folder.fd, prefix: path) }
        case .symlink:
            guard let target = Posix.readLink(at: dirfd, entry) else { throw .changing(location(path)) }
            guard !target.isEmpty, SymlinkTarget.staysInside(linkPath: path.rawValue, target: target) else {
                leftOut.append((location(path), "the link leads out of the package"))
                return
            }
            files.append((PackageMember(path: path, kind: .symlink, mtime: found.mtimeNs, symlinkTarget: target), []))
        case .regular:
            try readFile(entry, in: dirfd, path: path, found: found, mode: st.st_mode)
        case .other:
            leftOut.append((location(path), "not a file, folder or link"))
        }
    }

    private mutating func readFile(_ entry: String, in dirfd: Int32, path: RelativePath, found: FileStat, mode: mode_t) throws(PackageReadError) {
        let fd = Posix.retrying { openat(dirfd, entry, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK) }
        guard fd >= 0 else {
            if errno == ENOENT || errno == ELOOP { throw .changing(location(path)) }
            throw .failed(.posix(errno, "open", location(path)))
        }
        let file = OwnedDescriptor(fd)
        let member = PackageMember(path: path, kind: .file, size: found.size, mtime: found.mtimeNs,
                                   permissions: Permissions(mode: UInt32(mode), kind: .file), attributes: try attributes(of: file.fd, path: path))
        if let known = previous[path], known.member.size == found.size, known.member.mtime == found.mtimeNs {
            files.append((member, known.chunks))
            return
        }
        let chunked: (chunks: [ChunkRef], size: UInt64)
        do { chunked = try reader.chunker.chunks(ofFileDescriptor: file.fd) } catch {
            switch error.code {
            case .ioError(let code): throw .failed(.posix(code, "read", location(path)))
            case .fileChanged, .invalidParameters: throw .changing(location(path))
            }
        }
        var after = stat()
        guard fstat(file.fd, &after) == 0, FileStat(after) == found, chunked.size == found.size else { throw .changing(location(path)) }
        filesHashed += 1
        bytesHashed += chunked.size
        files.append((member, chunked.chunks))
    }

    private func attributes(of fd: Int32, path: RelativePath) throws(PackageReadError) -> ExtendedAttributes {
        guard reader.readsAttributes else { return .empty }
        switch AttributeIO.read(fd) {
        case .attributes(let attributes): return attributes
        case .tooLarge(let bytes):
            throw .failed(FileSystemError(.invalidName, "'\(location(path))' has \(bytes) bytes of extended attributes, more than \(ExtendedAttributes.limit)"))
        case .failed(let code, let operation): throw .failed(.posix(code, operation, location(path)))
        }
    }
}

/// FNV-1a over 64 bits (Fowler, Noll and Vo; the parameters of the IETF draft
/// draft-eastlake-fnv): the same on every run, unlike Swift's seeded `Hasher`, since the
/// index keeps it across restarts. The simulated disk's packages use it too.
public struct TreeDigest64: Sendable {
    public private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    public init() {}

    public mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01B3
        }
    }

    public mutating func add(_ text: String) {
        add(text.utf8)
        add(CollectionOfOne(0))
    }

    public mutating func add(_ stat: FileStat) {
        for number in [stat.size, UInt64(bitPattern: stat.mtimeNs), UInt64(bitPattern: stat.ctimeNs), stat.inode] {
            add(withUnsafeBytes(of: number.littleEndian) { Array($0) })
        }
    }
}
