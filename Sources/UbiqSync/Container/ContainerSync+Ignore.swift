import Foundation
import Synchronization
import UbiqModel

/// What a container's ignore rules are built from, and what was last read of `.ubiqignore`.
struct IgnoreSources: Sendable {
    var config: [String] = []
    var defaults = true
    /// The stat `.ubiqignore` was last read at; nil where there was none.
    var fileStat: FileStat?
    var loaded = false
    var rules = IgnoreRules.none
    /// Why `.ubiqignore` could not be read as a whole, where it could not.
    var fileProblem: String?
}

/// Ignored paths: neither scanned nor announced, nor applied from peers (their changes wait
/// in the needs until the path is synced again). A path ignored later keeps its last entry:
/// it is deleted nowhere.
extension ContainerSync {
    static let ignoreFile = try! RelativePath(IgnoreRules.fileName)

    /// This device's patterns and whether the built-in ones apply; read before the first scan.
    public nonisolated func setIgnoreSettings(config: [String], defaults: Bool) {
        ignoreSources.withLock {
            $0.config = config
            $0.defaults = defaults
            $0.loaded = false
        }
    }

    /// The rules in force.
    public nonisolated var ignoreRules: IgnoreRules { ignoreSources.withLock { $0.rules } }

    /// Why `.ubiqignore` is not in force, where it is not (too large, not text).
    public nonisolated var ignoreFileProblem: String? { ignoreSources.withLock { $0.fileProblem } }

    /// Reads `.ubiqignore` again where its stat changed; true when the rules changed, so
    /// that paths now synced are scanned and peers' changes to them applied.
    @discardableResult
    nonisolated func refreshIgnoreRules() -> Bool {
        let stat = disk.stat(Self.ignoreFile)
        let (config, defaults, unchanged) = ignoreSources.withLock { ($0.config, $0.defaults, $0.loaded && $0.fileStat == stat) }
        guard !unchanged else { return false }
        var problem: String?
        var text: String?
        if let stat {
            if stat.size > UInt64(IgnoreRules.maxFileBytes) {
                problem = "\(IgnoreRules.fileName) is \(stat.size) bytes, more than \(IgnoreRules.maxFileBytes); none of its lines apply"
            } else {
                do {
                    let bytes = try disk.read(.item(Self.ignoreFile), offset: 0, size: UInt32(stat.size))
                    text = String(validating: bytes, as: UTF8.self)
                    if text == nil { problem = "\(IgnoreRules.fileName) is not UTF-8 text; none of its lines apply" }
                } catch {
                    problem = "\(IgnoreRules.fileName) cannot be read (\(error)); none of its lines apply"
                }
            }
        }
        let rules = IgnoreRules(defaults: defaults, config: config, file: text)
        let changed = ignoreSources.withLock { sources in
            defer {
                sources.fileStat = stat
                sources.loaded = true
                sources.rules = rules
                sources.fileProblem = problem
            }
            return sources.loaded && sources.rules != rules
        }
        if let problem { logger.warning("ignore file not applied", metadata: ["problem": "\(problem)"]) }
        for error in rules.problems { logger.warning("ignore pattern left out", metadata: ["problem": "\(error)"]) }
        if changed { logger.info("ignore rules changed", metadata: ["patterns": "\(rules.patterns.count)"]) }
        return changed
    }

    /// The line that ignores `path`, where one does.
    public nonisolated func ignoring(_ path: RelativePath, isDirectory: Bool) -> IgnorePattern? {
        ignoreRules.ignoring(path, isDirectory: isDirectory)
    }
}
