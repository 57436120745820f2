import Foundation

/// Settings only tests use, read from the environment so that no user-facing flag exists
/// for them.
enum TestHooks {
    /// `UBIQ_TEST_PROTOCOL_VERSIONS=2,3`: speak only these peer-protocol versions, to test
    /// how agents of different versions refuse each other.
    static var protocolVersions: [UInt32]? {
        guard let raw = ProcessInfo.processInfo.environment["UBIQ_TEST_PROTOCOL_VERSIONS"] else { return nil }
        let versions = raw.split(separator: ",").compactMap { UInt32($0.trimmingCharacters(in: .whitespaces)) }
        return versions.isEmpty ? nil : versions
    }

    /// `UBIQ_TEST_CLOCK_OFFSET_SECONDS=-3600`: run the key-value clock this far off real
    /// time, to show that causally later writes win whatever the wall clocks say.
    static var clockOffsetMilliseconds: Int64 {
        guard let raw = ProcessInfo.processInfo.environment["UBIQ_TEST_CLOCK_OFFSET_SECONDS"],
              let seconds = Double(raw.trimmingCharacters(in: .whitespaces)), seconds.isFinite, abs(seconds) < 1e9
        else { return 0 }
        return Int64(seconds * 1000)
    }
}
