import GRDB
import UbiqModel

/// One kind's totals over a container's present items, as status shows them.
struct KindTotalsRow: FetchableRecord {
    static let select = """
        SELECT kind, COUNT(*) AS count, SUM(size) AS bytes, SUM(conflicts IS NOT NULL) AS conflicted, SUM(absent) AS absent FROM item
        WHERE container = ? AND deleted = 0 GROUP BY kind
        """

    enum Columns: String, ColumnExpression {
        case kind, count, bytes, conflicted, absent
    }

    var kind: ItemKind
    var count: Int
    var bytes: UInt64
    var conflicted: Int
    var absent: Int

    init(row: Row) throws {
        kind = try ItemKind(code: row.stored(Columns.kind))
        count = try row.stored(Columns.count)
        bytes = try row.stored(Columns.bytes) as UInt64? ?? 0
        conflicted = try row.stored(Columns.conflicted) as Int? ?? 0
        absent = try row.stored(Columns.absent) as Int? ?? 0
    }
}

/// The count and bytes of a container's pending needs.
struct NeedTotalsRow: FetchableRecord {
    static let select = "SELECT COUNT(*) AS count, SUM(size * (deleted = 0)) AS bytes FROM need WHERE container = ?"

    enum Columns: String, ColumnExpression {
        case count, bytes
    }

    var count: Int
    var bytes: UInt64

    init(row: Row) throws {
        count = try row.stored(Columns.count)
        bytes = try row.stored(Columns.bytes) as UInt64? ?? 0
    }
}
