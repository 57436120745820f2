import Synchronization
import UbiqFileSystem
import UbiqModel
import UbiqSync

/// File packages on disk: read whole, staged in `.ubiq/tmp/`, swapped in with one exchange.
extension FileSystemDisk {
    private var packageReader: PackageReader { PackageReader(chunker: scanner.chunker, readsAttributes: scanner.readsAttributes) }

    func stagePackage() throws -> any StagedPackage {
        StagedPackageOnDisk(staging: try files.stagePackage(), files: files)
    }

    func packageStamp(_ path: RelativePath) throws -> FileStat? {
        try fingerprint(path, changeTimes: false)
    }

    func packageFingerprint(_ path: RelativePath) throws -> FileStat? {
        try fingerprint(path, changeTimes: true)
    }

    private func fingerprint(_ path: RelativePath, changeTimes: Bool) throws -> FileStat? {
        do { return try files.packageFingerprint(path, reader: packageReader, changeTimes: changeTimes) } catch {
            throw DiskError(.alreadyExists, "'\(path)' is changing on disk (\(error)); it will be rescanned")
        }
    }

    /// Throws `.alreadyExists` unless the package at `path` still has the stamp `expected`.
    private func check(_ path: RelativePath, stamp expected: FileStat?) throws {
        guard try packageStamp(path) == expected, expected != nil || files.fileStat(of: path) == nil else {
            throw DiskError(.alreadyExists, "'\(path)' changed on disk while its new version was staged; it will be rescanned")
        }
    }

    func commitPackage(_ staged: any StagedPackage, to path: RelativePath, expected: FileStat?, keepReplacedAs: String?) throws {
        let staging = try Self.take(staged)
        do {
            try check(path, stamp: expected)
            if case .replaced(let previous) = try files.exchange(staging, into: path) {
                // The new version is in place; a tree neither kept nor removed now goes at the next start.
                let kept = keepReplacedAs.map { (try? files.keepStagedInHistory(previous, as: $0)) != nil } ?? false
                if !kept { try? files.removeStaged(previous) }
            }
        } catch {
            try? files.removeStaged(staging.name)
            if let error = error as? FileSystemError { throw DiskError(.io, error.message) }
            throw error
        }
    }

    func removePackage(_ path: RelativePath, expected: FileStat, keepAs name: String?) throws {
        try check(path, stamp: expected)
        do {
            if let name { try files.removeTreeKeeping(path, as: name) } else { try files.removeTree(path) }
        } catch {
            throw DiskError(error.code == .notFound ? .notFound : .io, error.message)
        }
    }

    func readPackage(_ path: RelativePath, previous: PackageContent?) throws -> PackageOnDisk {
        do {
            let reading = try files.readPackage(path, reader: packageReader, previous: previous)
            return PackageOnDisk(content: reading.content, stat: reading.fingerprint)
        } catch {
            switch error {
            case .failed(let failure) where failure.code == .notFound || failure.code == .notADirectory:
                throw DiskError(.notFound, failure.message)
            case .failed(let failure): throw DiskError(.io, failure.message)
            case .changing(let inside): throw DiskError(.io, "'\(inside)' changed while its package was read; it will be rescanned")
            }
        }
    }
}

extension FileSystemDisk {
    /// The staging behind a staged package, which is done with after this.
    static func take(_ staged: any StagedPackage) throws -> PackageStaging {
        guard let staged = staged as? StagedPackageOnDisk, let staging = staged.take() else {
            throw DiskError(.io, "not a staged package of this disk, or already committed")
        }
        return staging
    }
}

/// A ``PackageStaging`` handed to the engine; committing or discarding it twice does nothing.
final class StagedPackageOnDisk: StagedPackage {
    private let staging: Mutex<PackageStaging?>
    let files: SafeFileSystem

    init(staging: PackageStaging, files: SafeFileSystem) {
        self.staging = Mutex(staging)
        self.files = files
    }

    private func current() throws -> PackageStaging {
        guard let staging = staging.withLock({ $0 }) else { throw DiskError(.io, "staged package already finished") }
        return staging
    }

    func addFolder(_ member: PackageMember) throws { try current().addFolder(member) }
    func addLink(_ member: PackageMember) throws { try current().addLink(member) }
    func addFile(_ member: PackageMember, from staged: any StagedFile) throws {
        try current().addFile(member, from: try FileSystemDisk.take(staged))
    }
    func addFile(_ member: PackageMember, sharing source: RelativePath, linkable: Bool) throws {
        try current().addFile(member, sharing: source, linkable: linkable)
    }
    func finishFolders(_ members: [PackageMember], package: PackageMember) throws {
        try current().finishFolders(members, package: package)
    }

    func discard() {
        guard let staging = take() else { return }
        try? files.removeStaged(staging.name)
    }

    func take() -> PackageStaging? {
        staging.withLock { staging in
            defer { staging = nil }
            return staging
        }
    }
}
