import Foundation

/// Two versions of a document line by line, as `diff -u` shows them (hunks of changes with
/// three lines of context), from the standard library's `CollectionDifference` (Myers'
/// algorithm, "An O(ND) Difference Algorithm and Its Variations", 1986). Binary content is
/// only said to differ.
enum TextDiff {
    static let context = 3

    /// The unified diff from `old` to `new`, headed by their labels; empty when they are equal.
    static func unified(_ old: Data, _ new: Data, labels: (old: String, new: String)) -> String {
        guard old != new else { return "" }
        guard let oldText = text(old), let newText = text(new) else {
            return "Binary versions differ (\(ByteCount.format(Int64(old.count))) and \(ByteCount.format(Int64(new.count)))).\n"
        }
        let a = lines(oldText), b = lines(newText)
        let script = edits(from: a, to: b)
        var out = "--- \(labels.old)\n+++ \(labels.new)\n"
        for range in hunks(script) {
            let hunk = script[range]
            let oldCount = hunk.count { $0.kind != .added }, newCount = hunk.count { $0.kind != .removed }
            // diff -u numbers a side with no lines by the line before the hunk.
            let oldStart = hunk.first!.old + (oldCount == 0 ? 0 : 1), newStart = hunk.first!.new + (newCount == 0 ? 0 : 1)
            out += "@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@\n"
            for edit in hunk {
                switch edit.kind {
                case .same: out += " " + a[edit.old] + "\n"
                case .removed: out += "-" + a[edit.old] + "\n"
                case .added: out += "+" + b[edit.new] + "\n"
                }
            }
        }
        return out
    }

    /// The ranges of `script` shown: each change with ``context`` lines around it, changes
    /// closer than two contexts apart in one hunk.
    static func hunks(_ script: [Edit]) -> [Range<Int>] {
        let changes = script.indices.filter { script[$0].kind != .same }
        var result: [Range<Int>] = []
        for change in changes {
            let lower = max(0, change - context), upper = min(script.count, change + context + 1)
            if let last = result.last, lower <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<upper
            } else {
                result.append(lower..<upper)
            }
        }
        return result
    }

    struct Edit {
        enum Kind { case same, removed, added }
        var kind: Kind
        /// The line's index in the old text (for `added`: the index the next old line has).
        var old: Int
        /// The line's index in the new text (for `removed`: the index the next new line has).
        var new: Int
    }

    /// Every line of both texts in order: kept, removed from `a` or added from `b`.
    static func edits(from a: [String], to b: [String]) -> [Edit] {
        let difference = b.difference(from: a)
        var removed = Set<Int>(), inserted = Set<Int>()
        for change in difference {
            switch change {
            case .remove(let offset, _, _): removed.insert(offset)
            case .insert(let offset, _, _): inserted.insert(offset)
            }
        }
        var script: [Edit] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, removed.contains(i) {
                script.append(Edit(kind: .removed, old: i, new: j))
                i += 1
            } else if j < b.count, inserted.contains(j) {
                script.append(Edit(kind: .added, old: i, new: j))
                j += 1
            } else {
                script.append(Edit(kind: .same, old: i, new: j))
                i += 1
                j += 1
            }
        }
        return script
    }

    /// UTF-8 text without NUL bytes, else nil.
    private static func text(_ data: Data) -> String? {
        guard !data.contains(0) else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// The lines, without their line breaks; a last line without one counts as a line.
    static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
