import Foundation

/// The times `ubiq restore --at` takes: ISO 8601 (with or without fractional seconds, as
/// `history.list` gives them), or an age in minutes, hours or days (`90m`, `2h`, `3d`).
public enum RestoreTime {
    /// A text that is no time, with what to give instead.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// The time `text` names, ages counted back from `now`.
    public static func parse(_ text: String, now: Date = Date()) throws -> Date {
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        let units: [Character: Double] = ["m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last, let seconds = units[unit], let count = Double(text.dropLast()), count.isFinite, count >= 0 {
            return now.addingTimeInterval(-count * seconds)
        }
        throw Invalid(description: "'\(text)' is no time: give 2026-11-26T08:00:00Z, or an age like 90m, 2h or 3d")
    }
}
