import Foundation
import GRDB
import UbiqModel

/// Column names of the `chunk` table: where on this device each chunk of what is on disk
/// can be read, found by hash.
enum ChunkRow {
    enum Columns: String, ColumnExpression {
        case hash, container, file, offset, size
    }

    /// A location from `SELECT container.identifier, chunk.file, chunk.offset, chunk.size`.
    static func location(in row: Row) throws(IndexError) -> ChunkLocation {
        let identifier: String = try row.stored(ContainerRow.Columns.identifier)
        guard let container = try? ContainerID(identifier) else { throw IndexError(.corrupt, "a chunk's container '\(identifier)' is invalid") }
        return ChunkLocation(container: container, file: try ChunkLocation.File(stored: row.stored(Columns.file)),
                             offset: try row.stored(Columns.offset), size: try row.stored(Columns.size))
    }
}
