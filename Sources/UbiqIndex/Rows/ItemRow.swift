import Foundation
import GRDB
import UbiqModel

/// A row of the `item` table: one path of a container, the synced item with its local
/// sequence, stat fingerprint and whether its content is here.
struct ItemRow: FetchableRecord {
    /// Every column, in the order ``insertOrReplace`` lists them. Names are in lower case:
    /// GRDB finds a column by its lower-cased name, lower-casing a name that misses first,
    /// and SQLite's names are case-insensitive.
    enum Columns: String, ColumnExpression, CaseIterable {
        case container, path, kind, deleted, size, mtime, executable, symlinkTarget = "symlinktarget", version
        case modifiedBy = "modifiedby", chunks, conflicts, sequence, statSize = "statsize", statMtime = "statmtime"
        case statCtime = "statctime", statInode = "statinode", folded, absent, permissions, contentCounter = "contentcounter"
        case attributes, members
    }

    var container: Int64
    var indexed: IndexedItem

    init(container: Int64, indexed: IndexedItem) {
        self.container = container
        self.indexed = indexed
    }

    init(row: Row) throws {
        container = try row.stored(Columns.container)
        let path: String = try row.stored(Columns.path)
        let conflicts: Data? = try row.stored(Columns.conflicts)
        let kind = try ItemKind(code: row.stored(Columns.kind))
        let permissions: Int64? = try row.stored(Columns.permissions)
        let version = try IndexBinary.decodeVersion(row.stored(Columns.version))
        let modifiedBy = DeviceID(try row.stored(Columns.modifiedBy) as String)
        let contentCounter: Int64? = try row.stored(Columns.contentCounter)
        let attributes: Data? = try row.stored(Columns.attributes)
        let members: Data? = try row.stored(Columns.members)
        let chunks = try IndexCoding.decodeChunks(row.stored(Columns.chunks))
        if let contentCounter, contentCounter <= 0 || UInt64(contentCounter) > version[modifiedBy] {
            throw IndexError(.corrupt, "an item's content counter \(contentCounter) lies outside its version")
        }
        let item = Item(
            path: try Self.path(path), kind: kind, deleted: try row.stored(Columns.deleted),
            size: try row.stored(Columns.size), mtime: try row.stored(Columns.mtime),
            executable: try row.stored(Columns.executable),
            permissions: try permissions.map { bits throws(IndexError) in
                guard let bits = UInt32(exactly: bits) else { throw IndexError(.corrupt, "an item's permissions are \(bits)") }
                return Permissions(mode: bits, kind: kind)
            },
            attributes: try attributes.map { try IndexBinary.decodeAttributes($0) } ?? .empty,
            symlinkTarget: try row.stored(Columns.symlinkTarget),
            chunks: chunks, members: try members.map { try IndexBinary.decodeMembers($0, chunks: chunks) } ?? [],
            version: version, modifiedBy: modifiedBy, contentMadeAt: contentCounter.map { UInt64($0) },
            conflicts: try conflicts.map { try IndexBinary.decodeConflicts($0) } ?? [])
        indexed = IndexedItem(item: item, sequence: try row.stored(Columns.sequence), stat: try Self.stat(in: row),
                              downloaded: !(try row.stored(Columns.absent) as Bool))
    }

    private static let columns = Columns.allCases

    /// `INSERT OR REPLACE` of a whole row, for ``arguments``.
    static let insertOrReplace = """
        INSERT OR REPLACE INTO item (\(columns.map(\.rawValue).joined(separator: ", ")))
        VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
        """

    /// The values of ``insertOrReplace``.
    var arguments: StatementArguments {
        let item = indexed.item
        let stat = indexed.stat
        return StatementArguments(Self.columns.map { column -> (any DatabaseValueConvertible)? in
            switch column {
            case .container: container
            case .path: item.path.rawValue
            case .kind: item.kind.code
            case .deleted: item.deleted
            case .size: Int64(item.size)
            case .mtime: item.mtime
            case .executable: item.executable
            case .symlinkTarget: item.symlinkTarget
            case .version: IndexBinary.encode(item.version)
            case .modifiedBy: item.modifiedBy.rawValue
            case .chunks: IndexCoding.encode(item.chunks)
            case .conflicts: item.conflicts.isEmpty ? nil : IndexBinary.encode(item.conflicts)
            case .sequence: indexed.sequence
            case .statSize: stat.map { Int64($0.size) }
            case .statMtime: stat?.mtimeNs
            case .statCtime: stat?.ctimeNs
            case .statInode: stat.map { Int64(bitPattern: $0.inode) }
            case .folded: item.path.caseFolded
            case .absent: !indexed.downloaded
            case .permissions: Int64(item.permissions.bits)
            case .contentCounter: item.contentMadeAt.map { Int64($0) }
            case .attributes: item.attributes.isEmpty ? nil : IndexBinary.encode(item.attributes)
            case .members: item.kind == .package ? IndexBinary.encode(item.members) : nil
            }
        })
    }

    static func path(_ stored: String) throws(IndexError) -> RelativePath {
        do { return try RelativePath(stored) } catch { throw IndexError(.corrupt, "an item has an invalid path") }
    }

    /// The stat fingerprint of a row that selects the four stat columns; nil where none
    /// was recorded.
    static func stat(in row: Row) throws(IndexError) -> FileStat? {
        guard let size: UInt64 = try row.stored(Columns.statSize) else { return nil }
        return FileStat(size: size, mtimeNs: try row.stored(Columns.statMtime), ctimeNs: try row.stored(Columns.statCtime),
                        inode: UInt64(bitPattern: try row.stored(Columns.statInode) as Int64))
    }
}

/// What a rescan reads of each item (``ItemBaseline``), without decoding the rest of the row.
struct ItemBaselineRow: FetchableRecord {
    static let select = "SELECT path, deleted, absent, statSize, statMtime, statCtime, statInode FROM item"

    var path: RelativePath
    var baseline: ItemBaseline

    init(row: Row) throws {
        path = try ItemRow.path(row.stored(ItemRow.Columns.path))
        baseline = ItemBaseline(stat: try ItemRow.stat(in: row), deleted: try row.stored(ItemRow.Columns.deleted),
                                downloaded: !(try row.stored(ItemRow.Columns.absent) as Bool))
    }
}
