import Foundation
import UbiqModel

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

    /// `UBIQ_TEST_CRASH_AT=staged|before-rename|renamed|package-staged|package-exchanged` with
    /// `UBIQ_TEST_CRASH_PATH=Documents/a`:
    /// die at once (SIGKILL, as a crash would) at that step of putting a file from a peer in
    /// place, to show that after a restart the file and the index agree and nothing is lost.
    static let crashPoint: CrashPoint? = {
        let environment = ProcessInfo.processInfo.environment
        guard let raw = environment["UBIQ_TEST_CRASH_AT"], let step = CrashPoint.Step(rawValue: raw),
              let path = environment["UBIQ_TEST_CRASH_PATH"] else { return nil }
        return CrashPoint(step: step, path: path)
    }()

    /// `UBIQ_TEST_CLOCK_OFFSET_SECONDS=-3600`: run the key-value clock this far off real
    /// time, to show that causally later writes win whatever the wall clocks say.
    static var clockOffsetMilliseconds: Int64 {
        guard let raw = ProcessInfo.processInfo.environment["UBIQ_TEST_CLOCK_OFFSET_SECONDS"],
              let seconds = Double(raw.trimmingCharacters(in: .whitespaces)), seconds.isFinite, abs(seconds) < 1e9
        else { return 0 }
        return Int64(seconds * 1000)
    }

    /// `UBIQ_TEST_RECORD_COMPACT_AFTER=5`: compact record stores after this many
    /// transactions beyond their baseline instead of 1000, so a test sees compaction.
    static var recordCompactAfter: Int? {
        ProcessInfo.processInfo.environment["UBIQ_TEST_RECORD_COMPACT_AFTER"].flatMap { Int($0) }.map { max(1, $0) }
    }

    /// `UBIQ_TEST_SERVE_NOTHING=1`: answer every chunk request "not found", while telling
    /// peers as usual what this agent holds of files it fetches: a peer whose word is false,
    /// to show that the others stop believing it and fetch elsewhere.
    static var servesNothing: Bool { ProcessInfo.processInfo.environment["UBIQ_TEST_SERVE_NOTHING"] == "1" }

    /// `UBIQ_TEST_SCAN_BATCH=20000`: record a scan's new and changed entries in batches of
    /// this many instead of 8,192, so a test can make one burst of changes larger than a
    /// subscriber's buffer.
    static var scanBatch: Int? {
        ProcessInfo.processInfo.environment["UBIQ_TEST_SCAN_BATCH"].flatMap { Int($0) }.map { max(1, $0) }
    }

    /// `UBIQ_TEST_UNWATCHED_RESCAN_SECONDS=1`: rescan a container whose folders are not all
    /// watched this often instead of every minute, so a test sees the rescan.
    static var unwatchedRescanSeconds: Int? {
        ProcessInfo.processInfo.environment["UBIQ_TEST_UNWATCHED_RESCAN_SECONDS"].flatMap { Int($0) }.map { max(1, $0) }
    }

    /// `UBIQ_TEST_HISTORY_PRUNE=manual`: apply the history's retention only when
    /// `history.prune` asks, so a test sees what that one call lets go of.
    static var pruneOnlyWhenAsked: Bool { ProcessInfo.processInfo.environment["UBIQ_TEST_HISTORY_PRUNE"] == "manual" }
}

/// A step of putting a file in place at which a test wants the agent to die.
struct CrashPoint: Sendable {
    enum Step: String, Sendable {
        /// The temp file holds every byte, not yet flushed or renamed.
        case staged
        /// The temp file is durable; the rename is next.
        case beforeRename = "before-rename"
        /// The file is in place; the index does not know it yet.
        case renamed
        /// A package's new tree is durable in `.ubiq/tmp/`; the exchange is next.
        case packageStaged = "package-staged"
        /// A package's new tree is in place and its old one in `.ubiq/tmp/`; the index does not know it yet.
        case packageExchanged = "package-exchanged"
    }

    let step: Step
    let path: String

    func reached(_ step: Step, _ path: RelativePath) {
        guard step == self.step, path.rawValue == self.path else { return }
        kill(getpid(), SIGKILL)
    }
}
