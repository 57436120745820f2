import Foundation

/// Times for people, in the local time zone, to the minute.
enum DateDisplay {
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}

extension String {
    /// The first dash group of a device ID, enough to tell devices apart in a table.
    var shortDeviceID: String { String(split(separator: "-").first ?? Substring(self)) }
}
