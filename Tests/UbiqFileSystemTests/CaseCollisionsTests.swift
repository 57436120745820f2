import Testing
import UbiqFileSystem

@Suite struct CaseCollisionsTests {
    @Test func groupsPathsThatDifferOnlyInCase() {
        let groups = CaseCollisions.find(in: [
            "Documents/Report.txt", "Documents/report.txt", "Documents/REPORT.TXT",
            "Documents/other.txt", "Documents/Dir/x", "Documents/dir/x", "Documents/dir/y",
        ].map(path))
        #expect(groups == [
            ["Documents/Dir/x", "Documents/dir/x"].map(path),
            ["Documents/REPORT.TXT", "Documents/Report.txt", "Documents/report.txt"].map(path),
        ])
    }

    @Test func noCollisionsAndDuplicates() {
        #expect(CaseCollisions.find(in: []).isEmpty)
        #expect(CaseCollisions.find(in: ["a", "b", "a"].map(path)).isEmpty)
        // Unicode normalization is not case: two files, no clash.
        #expect(CaseCollisions.find(in: ["Documents/caf\u{E9}", "Documents/cafe\u{301}"].map(path)).isEmpty)
        #expect(CaseCollisions.find(in: ["Documents/CAF\u{C9}", "Documents/caf\u{E9}"].map(path)).count == 1)
    }
}
