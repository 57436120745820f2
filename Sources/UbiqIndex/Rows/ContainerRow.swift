import GRDB

/// A row of the `container` table: the local row ID other tables refer to, with the
/// container's index ID and sequence.
struct ContainerRow: FetchableRecord {
    enum Columns: String, ColumnExpression {
        case id, identifier, indexID, sequence
    }

    var id: Int64
    var indexID: Int64
    var sequence: Int64

    init(id: Int64, indexID: Int64, sequence: Int64) {
        self.id = id
        self.indexID = indexID
        self.sequence = sequence
    }

    init(row: Row) throws {
        id = try row.stored(Columns.id)
        indexID = try row.stored(Columns.indexID)
        sequence = try row.stored(Columns.sequence)
    }
}
