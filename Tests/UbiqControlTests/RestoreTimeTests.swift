import Foundation
import Testing
import UbiqControlAPI

/// What `ubiq restore --at` takes: an ISO 8601 time, or an age counted back from now.
@Suite struct RestoreTimeTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func takesISO8601TimesWithOrWithoutFractionalSeconds() throws {
        #expect(try RestoreTime.parse("2026-11-26T08:00:00Z", now: Self.now) == Date(timeIntervalSince1970: 1_795_680_000))
        #expect(try RestoreTime.parse("2026-11-26T09:00:00+01:00", now: Self.now) == Date(timeIntervalSince1970: 1_795_680_000))
        #expect(try RestoreTime.parse("2026-11-26T08:00:00.500Z", now: Self.now) == Date(timeIntervalSince1970: 1_795_680_000.5))
    }

    @Test func takesAnAgeInMinutesHoursOrDays() throws {
        for (text, seconds) in [("90m", 5_400.0), ("2h", 7_200), ("3d", 259_200), ("0m", 0), ("1.5h", 5_400)] {
            #expect(try RestoreTime.parse(text, now: Self.now) == Self.now.addingTimeInterval(-seconds), "\(text)")
        }
    }

    @Test func refusesAnythingElseSayingWhatToGive() {
        for text in ["", "yesterday", "90", "m", "2w", "-3d", "infh", "nanm", "2026-11-26", "2026-11-26 08:00", "h2"] {
            let error = #expect(throws: RestoreTime.Invalid.self, "\(text)") { try RestoreTime.parse(text, now: Self.now) }
            #expect(error?.description == "'\(text)' is no time: give 2026-11-26T08:00:00Z, or an age like 90m, 2h or 3d")
        }
    }
}
