import Foundation
import GRDB
import UbiqModel

/// How far this device has read a peer's index: the `indexID` and `maxSequence` of a row
/// of `peer` (containers) or `kvpeer` (key-value stores), which name them alike.
struct PeerStateRow: FetchableRecord {
    enum Columns: String, ColumnExpression {
        case indexID, maxSequence
    }

    var state: PeerIndexState

    init(row: Row) throws {
        state = PeerIndexState(indexID: UInt64(bitPattern: try row.stored(Columns.indexID) as Int64), maxSequence: try row.stored(Columns.maxSequence))
    }
}

/// Column names of the `held` table: which version of a path each peer holds the content
/// of, for `isUploaded` and for choosing whom to ask.
enum HeldRow {
    enum Columns: String, ColumnExpression {
        case container, path, device, version
    }
}
