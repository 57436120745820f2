import GRDB

extension Row {
    /// The value of `column`, read by name. A stored value that cannot be a `Value` (NULL
    /// where one is required, text where a number belongs, a negative size read as unsigned)
    /// is an ``IndexError`` `.corrupt` rather than the crash of GRDB's `row[column]`.
    func stored<Value: DatabaseValueConvertible & StatementColumnConvertible>(_ column: some ColumnExpression) throws(IndexError) -> Value {
        do { return try decode(Value.self, forColumn: column) } catch {
            throw IndexError(.corrupt, "column \(column.name): \(error)")
        }
    }
}
