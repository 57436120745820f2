import Testing
import UbiqModel
@testable import UbiqSync

@Suite struct HardLinksTests {
    func p(_ s: String) -> RelativePath { try! RelativePath(s) }

    @Test func aChangeAtOneNameFindsTheOthersAndRescansForgetTheGone() {
        var links = HardLinks()
        links.scanned([nil], found: [p("a/x"): 7, p("b/y"): 7, p("c"): 9])
        #expect(links.unknownInodes(in: [p("a/x"): 7]).isEmpty)
        #expect(links.otherNames(of: [p("a/x")]) == [p("b/y")])
        // The inode's other name lies outside the scan: looked up once, then known.
        #expect(links.unknownInodes(in: [p("c"): 9]) == [9])
        #expect(links.unknownInodes(in: [p("c"): 9]).isEmpty, "an inode was looked up twice")
        links.add([p("d"): 9])
        #expect(links.otherNames(of: [p("c")]) == [p("d")])
        // A rescan of `a` that no longer sees `a/x` as linked forgets it there.
        links.scanned([p("a")], found: [:])
        #expect(links.otherNames(of: [p("b/y")]).isEmpty && links.otherNames(of: [p("a/x")]).isEmpty)
        links.scanned([nil], found: [:])
        #expect(links.isEmpty)
    }
}
