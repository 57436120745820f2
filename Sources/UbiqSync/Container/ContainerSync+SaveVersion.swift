import Foundation
import UbiqIndex
import UbiqModel

/// "Keep both": a version of a document written out as a new document.
extension ContainerSync {
    /// Writes the content of one version of `path` (a conflict version by ID, or the current
    /// one when `versionID` is nil) to `destination`, which must not exist. The content is
    /// assembled from the kept chunks, each checked against its hash (from peers for any not
    /// held here), and appears at `destination` complete or not at all. The new file is then
    /// recorded as a local change, so it reaches peers at once. The conflict of `path` stays
    /// until it is resolved. Returns the new item and the ID of the version saved.
    public func saveVersion(of path: RelativePath, id versionID: String?, to destination: RelativePath) async throws -> (item: Item, versionID: String) {
        let source = try version(of: path, id: versionID, use: "save")
        guard source.kind.hasBytes else {
            throw SaveVersionError(.unsupported, "version \(source.id) of '\(path)' is a \(source.kind); only files and packages can be saved under a new name")
        }
        guard destination.isSyncable else {
            throw SaveVersionError(.notSyncable, "'\(destination)' is inside a .nosync folder; choose a path that syncs")
        }
        if disk.stat(destination) != nil {
            throw SaveVersionError(.alreadyExists, "'\(destination)' already exists; choose a new path")
        }
        if let twin = try index.caseTwin(id, of: destination) {
            throw SaveVersionError(.alreadyExists, "'\(destination)' differs only in case from '\(twin)'; choose another path")
        }
        let scanRoot = try scanRoot(creating: destination)
        do {
            if source.kind == .package {
                try await savePackage(source, of: path, to: destination)
            } else {
                let staged = try await assemble(source.chunks, path: path)
                do { _ = try disk.commitNew(staged, to: destination, metadata: FileMetadata(of: source)) } catch {
                    staged.discard()
                    throw error
                }
            }
        } catch let error as DiskError where error.code == .alreadyExists {
            throw SaveVersionError(.alreadyExists, "'\(destination)' already exists; choose a new path")
        }
        logger.info("saved a version under a new name", metadata: [
            "path": "\(path)", "versionID": "\(source.id)", "to": "\(destination)",
        ])
        await localChanges([scanRoot])
        guard let saved = try index.item(id, destination)?.item, !saved.deleted else {
            throw SaveVersionError(.busy, "'\(destination)' was written but changed before it was recorded; it will be picked up by the next scan")
        }
        return (saved, source.id)
    }
}

extension ContainerSync {
    /// One version of `path`: a conflict version by ID, or the current one when `versionID`
    /// is nil or its own; `use` names what the caller does with it, for the messages.
    nonisolated func version(of path: RelativePath, id versionID: String?, use: String) throws -> ConflictVersion {
        guard let indexed = try index.item(id, path) else {
            throw SaveVersionError(.notFound, "'\(path)' is not in container \(id)")
        }
        let current = indexed.item
        if versionID == nil || versionID == current.versionID {
            guard !current.deleted else {
                throw SaveVersionError(.notFound, "'\(path)' is deleted; \(use) one of its conflict versions instead")
            }
            return ConflictVersion(of: current)
        }
        guard let version = current.conflicts.first(where: { $0.id == versionID }) else {
            throw SaveVersionError(.versionNotFound, "'\(path)' has no version '\(versionID ?? "")'; see `ubiq versions`")
        }
        return version
    }

    /// The path to scan after writing a file at `path` that a commit may give new folders:
    /// the outermost folder above it the index does not hold (or holds as deleted), so the
    /// folders are recorded with the file; `path` itself where its folder is indexed.
    func scanRoot(creating path: RelativePath) throws -> RelativePath {
        var root = path
        while let parent = root.parent, (try index.item(id, parent)).map({ $0.item.deleted }) ?? true {
            root = parent
        }
        return root
    }
}

/// Why a version was not saved under a new name.
public struct SaveVersionError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case notFound
        case versionNotFound
        case alreadyExists
        /// The new path would never sync (`.nosync`).
        case notSyncable
        /// Not a file or package (a link or a folder).
        case unsupported
        case busy
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
