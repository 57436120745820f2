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
    }
}
