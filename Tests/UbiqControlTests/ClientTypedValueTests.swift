import Foundation
import Testing
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// The typed reads of `UbiquitousKeyValueStore` follow iCloud's conversions, and change
/// notices become typed changes.
struct ClientTypedValueTests {
    @Test func numbersConvertLikeICloudAndOtherTypesReadAsAbsent() {
        #expect(PropertyListValue.integer(-7).int64Value == -7)
        #expect(PropertyListValue.double(2.9).int64Value == 2)
        #expect(PropertyListValue.double(-2.9).int64Value == -2)
        #expect(PropertyListValue.double(.nan).int64Value == nil)
        #expect(PropertyListValue.double(1e19).int64Value == nil)
        #expect(PropertyListValue.bool(true).int64Value == 1)
        #expect(PropertyListValue.string("12").int64Value == nil)

        #expect(PropertyListValue.integer(3).doubleValue == 3.0)
        #expect(PropertyListValue.double(0.25).doubleValue == 0.25)
        #expect(PropertyListValue.bool(false).doubleValue == 0)
        #expect(PropertyListValue.date(secondsSince1970: 5).doubleValue == nil)

        #expect(PropertyListValue.bool(true).boolValue == true)
        #expect(PropertyListValue.integer(0).boolValue == false)
        #expect(PropertyListValue.integer(-1).boolValue == true)
        #expect(PropertyListValue.double(0.5).boolValue == true)
        #expect(PropertyListValue.string("true").boolValue == nil)
    }

    @Test func eachOtherTypeReadsOnlyAsItself() {
        let date = Date(timeIntervalSince1970: 1_795_341_600.125)
        let values: [PropertyListValue] = [
            .string("s"), PropertyListValue(Data([1, 2])), PropertyListValue(date), .array([.integer(1)]),
            .dictionary(["k": .bool(true)]),
        ]
        #expect(values.map { $0.stringValue != nil } == [true, false, false, false, false])
        #expect(values.map { $0.dataValue != nil } == [false, true, false, false, false])
        #expect(values.map { $0.dateValue != nil } == [false, false, true, false, false])
        #expect(values.map { $0.arrayValue != nil } == [false, false, false, true, false])
        #expect(values.map { $0.dictionaryValue != nil } == [false, false, false, false, true])
        #expect(values[1] == .data([1, 2]) && values[1].dataValue == Data([1, 2]))
        #expect(values[2] == .date(secondsSince1970: 1_795_341_600.125) && values[2].dateValue == date)
        #expect(values[4].dictionaryValue == ["k": .bool(true)])
    }

    @Test func aConflictNoticeBecomesATypedChange() throws {
        let store = try KeyValueStoreID("TEAMID.com.example.game")
        let (alpha, beta) = (DeviceID("AAAAAAAA-AAAAAAAA-AAAAAAAA-AAAAAAAA"), DeviceID("BBBBBBBB-BBBBBBBB-BBBBBBBB-BBBBBBBB"))
        let notice = KeyValueChangeNotice(reason: "conflict", store: store, keys: ["level", "seen"], conflicts: [
            .init(key: "level", winner: 40, winnerDevice: alpha, loser: 45, loserDevice: beta),
            .init(key: "seen", winner: .null, winnerDevice: beta, loser: ["$date": "2026-11-22T09:15:02.517Z"], loserDevice: alpha),
        ])
        let change = try UbiquitousKeyValueStore.ExternalChange(notice)
        #expect(change.reason == .conflict && change.store == store && change.keys == ["level", "seen"])
        #expect(change.conflicts.count == 2)
        #expect(change.conflicts.first == .init(key: "level", winner: .integer(40), winnerDevice: alpha, loser: .integer(45), loserDevice: beta))
        let seen = try #require(change.conflicts.last)
        #expect(seen.key == "seen" && seen.winner == nil && seen.winnerDevice == beta && seen.loserDevice == alpha)
        let lost = try #require(seen.loser?.dateValue)
        #expect(abs(lost.timeIntervalSince1970 - 1_795_338_902.517) < 1e-6)
    }

    @Test func everyReasonIsKnownAndAnUnknownOneReadsAsARemoteChange() throws {
        let store = try KeyValueStoreID("TEAMID.com.example.game")
        for reason in UbiquitousKeyValueStore.ExternalChange.Reason.allCases {
            let change = try UbiquitousKeyValueStore.ExternalChange(KeyValueChangeNotice(reason: reason.rawValue, store: store, keys: ["k"]))
            #expect(change.reason == reason && change.conflicts.isEmpty)
        }
        let future = try UbiquitousKeyValueStore.ExternalChange(KeyValueChangeNotice(reason: "somethingNew", store: store, keys: ["k"]))
        #expect(future.reason == .remoteChange && future.keys == ["k"])
    }

    @Test func anUnreadableConflictValueIsAnInvalidResponse() throws {
        let store = try KeyValueStoreID("TEAMID.com.example.game")
        let device = DeviceID("AAAAAAAA-AAAAAAAA-AAAAAAAA-AAAAAAAA")
        let notice = KeyValueChangeNotice(reason: "conflict", store: store, keys: ["k"], conflicts: [
            .init(key: "k", winner: ["$data": "not base64!"], winnerDevice: device, loser: 1, loserDevice: device),
        ])
        #expect { try UbiquitousKeyValueStore.ExternalChange(notice) } throws: { ($0 as? UbiqClientError)?.code == .invalidResponse }
    }
}
