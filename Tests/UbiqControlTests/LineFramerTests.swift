import Testing
import UbiqControlAPI

@Suite struct LineFramerTests {
    @Test func findsLinesAndDropsCarriageReturn() {
        var framer = LineFramer(maximumLength: 100)
        #expect(framer.scan(Array("abc\ndef".utf8)) == .line(length: 3, consumed: 4))
        #expect(framer.scan(Array("def".utf8)) == .needMoreData)
        #expect(framer.scan(Array("def\r\n".utf8)) == .line(length: 3, consumed: 5))
        #expect(framer.scan(Array("\n".utf8)) == .line(length: 0, consumed: 1))
    }

    @Test func reportsAnOverlongLineWithoutANewline() {
        var framer = LineFramer(maximumLength: 4)
        #expect(framer.scan(Array("1234\n".utf8)) == .line(length: 4, consumed: 5))
        #expect(framer.scan(Array("1234".utf8)) == .needMoreData)
        #expect(framer.scan(Array("12345".utf8)) == .tooLong)
        var fresh = LineFramer(maximumLength: 4)
        #expect(fresh.scan(Array("12345\n".utf8)) == .tooLong)
    }

    @Test func resumesTheSearchWhereItStopped() {
        var framer = LineFramer(maximumLength: 1000)
        var input = Array(repeating: UInt8(ascii: "x"), count: 10)
        #expect(framer.scan(input) == .needMoreData)
        input += Array("yz\nrest".utf8)
        #expect(framer.scan(input) == .line(length: 12, consumed: 13))
        #expect(framer.scan(Array("rest\n".utf8)) == .line(length: 4, consumed: 5))
    }
}
