import Testing
@testable import UbiqDiscovery

@Suite struct TXTRecordTests {
    func bytes(_ strings: String...) -> [UInt8] {
        strings.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
    }

    @Test func encodesLengthPrefixedStrings() throws {
        let encoded = try TXTRecord.encode([
            .init(key: "v", value: Array("1".utf8)), .init(key: "flag", value: nil), .init(key: "e", value: []),
        ])
        #expect(encoded == bytes("v=1", "flag", "e="))
    }

    @Test func anEmptyRecordIsOneEmptyString() throws {
        #expect(try TXTRecord.encode([]) == [0])
        #expect(try TXTRecord.decode([0]).isEmpty)
        #expect(try TXTRecord.decode([]).isEmpty)
    }

    @Test func decodesWhatItEncodes() throws {
        let entries: [TXTRecord.Entry] = [
            .init(key: "v", value: Array("1,2".utf8)), .init(key: "bool", value: nil),
            .init(key: "bin", value: [0, 255, 61, 10]), .init(key: "long", value: [UInt8](repeating: 120, count: 250)),
        ]
        #expect(try TXTRecord.decode(TXTRecord.encode(entries)) == entries)
    }

    @Test func valuesMayContainEqualsSigns() throws {
        #expect(try TXTRecord.decode(bytes("k=a=b")) == [.init(key: "k", value: Array("a=b".utf8))])
    }

    @Test func emptyStringsAndEmptyKeysAreSkipped() throws {
        let record = [0] + bytes("=orphan", "k=v") + [0]
        #expect(try TXTRecord.decode(record) == [.init(key: "k", value: Array("v".utf8))])
    }

    @Test func firstOccurrenceWinsCaseInsensitively() throws {
        let entries = try TXTRecord.decode(bytes("DEV=first", "dev=second", "flag"))
        #expect(TXTRecord.firstValue(of: "dev", in: entries) == .some(Array("first".utf8)))
        #expect(TXTRecord.firstValue(of: "flag", in: entries) == .some(nil))
        #expect(TXTRecord.firstValue(of: "acct", in: entries) == nil)
    }

    @Test func aLengthPastTheEndIsMalformed() {
        #expect(throws: DiscoveryError.self) { try TXTRecord.decode([5, 65, 66]) }
        #expect(code { try TXTRecord.decode([5, 65, 66]) } == .malformedTXT)
        #expect(code { try TXTRecord.decode(self.bytes("v=1") + [255]) } == .malformedTXT)
    }

    @Test func overlongRecordsAreRefused() {
        let huge = Array(repeating: bytes("x=" + String(repeating: "y", count: 200)), count: 7).flatMap { $0 }
        #expect(huge.count > TXTRecord.maximumLength)
        #expect(code { try TXTRecord.decode(huge) } == .malformedTXT)
    }

    @Test func keysOutsidePrintableASCIIAreMalformed() {
        #expect(code { try TXTRecord.decode([3, 0x01, 0x3D, 0x31]) } == .malformedTXT)
        #expect(code { try TXTRecord.decode([4, 0xC3, 0xA9, 0x3D, 0x31]) } == .malformedTXT)
    }

    @Test func encodingRefusesBadKeysAndLongEntries() {
        #expect(code { try TXTRecord.encode([.init(key: "", value: nil)]) } == .invalidValue)
        #expect(code { try TXTRecord.encode([.init(key: "a=b", value: nil)]) } == .invalidValue)
        #expect(code { try TXTRecord.encode([.init(key: "tenletters", value: nil)]) } == .invalidValue)
        #expect(code { try TXTRecord.encode([.init(key: "k", value: [UInt8](repeating: 1, count: 254))]) } == .invalidValue)
        #expect(code { try TXTRecord.encode([.init(key: "k", value: [UInt8](repeating: 1, count: 253))]) } == nil)
    }
}

/// The code of the `DiscoveryError` `body` throws, nil when it returns.
func code<T>(_ body: () throws -> T) -> DiscoveryError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as DiscoveryError {
        return error.code
    } catch {
        Issue.record("not a DiscoveryError: \(error)")
        return nil
    }
}
