import GRDB
import UbiqModel

/// What this device remembers of a container's folder, so that a folder that is not there,
/// or is another one, is told from one whose files were deleted (`FolderCheck`).
extension SyncIndex {
    public func rememberedFolder(_ container: ContainerID) throws -> RememberedFolder? {
        try read { db in
            guard let id = try containerID(db, container),
                  let row = try Row.fetchOne(db, cached: "SELECT folderID, folderDevice, folderInode FROM container WHERE id = ?", arguments: [id]),
                  let folder: String = row[0] else { return nil }
            return RememberedFolder(folder: folder, device: UInt64(bitPattern: row[1] ?? 0), inode: UInt64(bitPattern: row[2] ?? 0))
        }
    }

    public func remember(_ container: ContainerID, folder: RememberedFolder) throws {
        try write { db in
            let id = try containerRow(db, container).id
            try db.execute(cached: "UPDATE container SET folderID = ?, folderDevice = ?, folderInode = ? WHERE id = ?",
                           arguments: [folder.folder, Int64(bitPattern: folder.device), Int64(bitPattern: folder.inode), id])
        }
    }

    /// Whether the index knows any file, link or package of the container that is not deleted.
    public func knowsFiles(_ container: ContainerID) throws -> Bool {
        try read { db in
            guard let id = try containerID(db, container) else { return false }
            return try Bool.fetchOne(db, cached: "SELECT EXISTS (SELECT 1 FROM item WHERE container = ? AND deleted = 0 AND kind != ?)",
                                   arguments: [id, ItemKind.directory.code]) ?? false
        }
    }
}
