import Testing
import UbiqTestSupport
import UbiqModel
@testable import UbiqDiscovery

@Suite struct DiscoveryRecordTests {
    let device = DeviceID("AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD")
    let account = try! AccountTag("0123456789abcdef")

    func txt(_ strings: [String]) -> [UInt8] {
        strings.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
    }

    func decodeError(_ strings: [String], port: UInt16 = 7000) -> DiscoveryError? {
        do {
            _ = try DiscoveryRecord.decode(txt: txt(strings), port: port)
            return nil
        } catch {
            return error
        }
    }

    @Test func encodesTheThreeKeys() throws {
        let record = try DiscoveryRecord(deviceID: device, accountTag: account, protocolVersions: [1, 2], port: 7000)
        #expect(record.encodedTXT() == txt(["v=1,2", "dev=AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD", "acct=0123456789abcdef"]))
        #expect(record.instanceName == device.rawValue)
        #expect(DiscoveryRecord.serviceType == "_ubiq._tcp")
    }

    @Test func roundTrips() throws {
        let record = try DiscoveryRecord(deviceID: device, accountTag: account, protocolVersions: [3, 1], port: 65535)
        #expect(try DiscoveryRecord.decode(txt: record.encodedTXT(), port: 65535) == record)
        #expect(try record.with(port: 1).port == 1)
    }

    /// An open invitation travels as `join=PORT:HINT`; a malformed one is left out, never
    /// the record.
    @Test func anInvitationRoundTripsAndAMalformedOneIsLeftOut() throws {
        let base = try DiscoveryRecord(deviceID: device, accountTag: account, protocolVersions: [4], port: 7000)
        let inviting = base.with(invitation: try DiscoveryRecord.Invitation(port: 41235, hint: "0a1b2c3d"))
        #expect(inviting.encodedTXT() == txt(["v=4", "dev=AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD", "acct=0123456789abcdef", "join=41235:0a1b2c3d"]))
        #expect(try DiscoveryRecord.decode(txt: inviting.encodedTXT(), port: 7000) == inviting)
        #expect(inviting.with(invitation: nil) == base)
        let keys = ["v=4", "dev=AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD", "acct=0123456789abcdef"]
        for bad in ["join=0:0a1b2c3d", "join=41235:0A1B2C3D", "join=41235", "join=70000:0a1b2c3d", "join=41235:0a1b2c3", "join", "join=+1:0a1b2c3d"] {
            let decoded = try DiscoveryRecord.decode(txt: txt(keys + [bad]), port: 7000)
            #expect(decoded == base, "\(bad)")
        }
        #expect(throws: DiscoveryError.self) { try DiscoveryRecord.Invitation(port: 1, hint: "xyz") }
    }

    @Test func realDeviceIDsAreAccepted() throws {
        let real = DeviceID(publicKeyDigest: (0..<32).map { UInt8($0 * 7) })
        let record = try DiscoveryRecord(deviceID: real, accountTag: account, protocolVersions: [1], port: 1)
        #expect(try DiscoveryRecord.decode(txt: record.encodedTXT(), port: 1).deviceID == real)
    }

    @Test func unknownKeysAndOrderDoNotMatter() throws {
        let record = try DiscoveryRecord.decode(txt: txt(["future=x", "acct=0123456789abcdef", "flag", "DEV=ABC", "V=1"]), port: 9)
        #expect(record.deviceID == DeviceID("ABC"))
        #expect(record.protocolVersions == [1])
    }

    @Test func aRepeatedKeyUsesItsFirstValue() throws {
        let record = try DiscoveryRecord.decode(txt: txt(["v=1", "dev=FIRST", "dev=SECOND", "acct=0123456789abcdef"]), port: 9)
        #expect(record.deviceID == DeviceID("FIRST"))
    }

    @Test(arguments: ["v", "dev", "acct"])
    func missingKeysAreNamed(_ key: String) {
        let all = ["v": "v=1", "dev": "dev=ABC", "acct": "acct=0123456789abcdef"]
        let error = decodeError(all.filter { $0.key != key }.map(\.value))
        #expect(error?.code == .missingKey)
        #expect(error?.key == key)
    }

    @Test(arguments: ["v", "dev", "acct"])
    func keysWithoutValuesAreRefused(_ key: String) {
        var all = ["v": "v=1", "dev": "dev=ABC", "acct": "acct=0123456789abcdef"]
        for form in [key, key + "="] {
            all[key] = form
            let error = decodeError(Array(all.values))
            #expect(error?.code == .invalidValue)
            #expect(error?.key == key)
        }
    }

    @Test(arguments: ["", "0", "01", "1,", ",1", "1,,2", "a", "1.0", "+1", "-1", " 1", "1, 2", "4294967296",
                      "99999999999", "1,1", Array(repeating: "1", count: 1).joined() + (2...33).map { ",\($0)" }.joined()])
    func badVersionsAreRefused(_ value: String) {
        let error = decodeError(["v=" + value, "dev=ABC", "acct=0123456789abcdef"])
        #expect(error?.code == .invalidValue)
        #expect(error?.key == "v")
    }

    @Test func versionsAtTheEdgesAreAccepted() throws {
        let record = try DiscoveryRecord.decode(txt: txt(["v=4294967295,1,10", "dev=ABC", "acct=0123456789abcdef"]), port: 9)
        #expect(record.protocolVersions == [4294967295, 1, 10])
    }

    @Test(arguments: ["0123456789ABCDEF", "0123456", "0123456789abcdeg", String(repeating: "a", count: 65), "0123 456789abcdef",
                      "0x23456789abcdef", "０１２３４５６７８９"])
    func badAccountTagsAreRefused(_ value: String) {
        let error = decodeError(["v=1", "dev=ABC", "acct=" + value])
        #expect(error?.code == .invalidValue)
        #expect(error?.key == "acct")
        #expect(code { try AccountTag(value) } == .invalidValue)
    }

    @Test(arguments: ["abc", "-ABC", "ABC-", "AB--C", "AB.C", "AB C", "AB1", "AB8", String(repeating: "A", count: 64), "ÄBC", "AB_C"])
    func badDeviceIDsAreRefused(_ value: String) {
        let error = decodeError(["v=1", "dev=" + value, "acct=0123456789abcdef"])
        #expect(error?.code == .invalidValue)
        #expect(error?.key == "dev")
        #expect(code { try DiscoveryRecord(deviceID: DeviceID(value), accountTag: account, protocolVersions: [1], port: 1) } == .invalidValue)
    }

    @Test func valuesWithControlBytesAreRefused() {
        let record: [UInt8] = txt(["v=1", "acct=0123456789abcdef"]) + [8] + Array("dev=A".utf8) + [0, 0x0A, 0x42]
        #expect(code { try DiscoveryRecord.decode(txt: record, port: 1) } == .invalidValue)
    }

    @Test func overlongValuesAreRefused() {
        let error = decodeError(["v=1", "dev=" + String(repeating: "A", count: 200), "acct=0123456789abcdef"])
        #expect(error?.code == .invalidValue)
        #expect(error?.key == "dev")
    }

    @Test func portZeroIsRefused() {
        #expect(decodeError(["v=1", "dev=ABC", "acct=0123456789abcdef"], port: 0)?.code == .invalidValue)
        #expect(code { try DiscoveryRecord(deviceID: device, accountTag: account, protocolVersions: [1], port: 0) } == .invalidValue)
    }

    @Test func ownRecordsNeedVersions() {
        #expect(code { try DiscoveryRecord(deviceID: device, accountTag: account, protocolVersions: [], port: 1) } == .invalidValue)
        #expect(code { try DiscoveryRecord(deviceID: device, accountTag: account, protocolVersions: [0], port: 1) } == .invalidValue)
        #expect(code { try DiscoveryRecord(deviceID: device, accountTag: account, protocolVersions: [2, 2], port: 1) } == .invalidValue)
    }

    /// Random and mutated records either decode to a valid record or throw; never crash.
    @Test func hostileBytesNeverCrash() throws {
        var generator = SplitMix64(seed: 0x75_62_69_71)
        let valid = try DiscoveryRecord(deviceID: device, accountTag: account, protocolVersions: [1], port: 7).encodedTXT()
        var accepted = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(generator.next() % 300)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else {
                bytes = valid
                for _ in 0..<(1 + generator.next() % 3) {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            if let record = try? DiscoveryRecord.decode(txt: bytes, port: 7) {
                accepted += 1
                #expect(try DiscoveryRecord.decode(txt: record.encodedTXT(), port: 7) == record)
            }
        }
        #expect(accepted > 0)
    }
}
