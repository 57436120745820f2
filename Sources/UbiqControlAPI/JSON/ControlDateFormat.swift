import Foundation

/// The one date format of the control protocol: ISO-8601 in UTC with milliseconds
/// (`2025-01-31T09:15:02.517Z`); parsing also takes the form without fraction.
public enum ControlDateFormat {
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()

    public static func string(from date: Date) -> String { date.formatted(withFraction) }

    public static func date(from string: String) -> Date? {
        (try? withFraction.parse(string)) ?? (try? withoutFraction.parse(string))
    }
}

/// A coding key for array positions and free-form keys in coding paths.
struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

extension [any CodingKey] {
    /// `items[3].path` style, for error messages.
    var dottedPath: String {
        guard !isEmpty else { return "the value" }
        var out = ""
        for key in self {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                out += out.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return out
    }
}
