/// Columns padded to their widest cell, no trailing spaces.
struct TextTable {
    enum Alignment { case left, right }

    var alignments: [Alignment]
    var rows: [[String]] = []

    init(header: [String], alignments: [Alignment]? = nil) {
        self.alignments = alignments ?? header.map { _ in .left }
        rows.append(header)
    }

    mutating func append(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column == row.count - 1, alignment(column) == .left { return cell }
                return alignment(column) == .left ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }.map { line in String(line.reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
    }

    private func alignment(_ column: Int) -> Alignment {
        column < alignments.count ? alignments[column] : .left
    }
}
