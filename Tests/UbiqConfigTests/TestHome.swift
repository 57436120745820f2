import Foundation
import UbiqConfig

/// A fresh, empty home folder in a temporary directory, removed when released; the
/// environment it gives has `HOME` only, so no setting of the machine leaks into a test.
final class TestHome {
    let root: String
    var home: String { root + "/home" }
    var environment: [String: String] { ["HOME": home] }

    init() throws {
        root = FileManager.default.temporaryDirectory.path + "/ubiq-config-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Writes `text` at `path` (relative to the home folder) and returns the absolute path.
    @discardableResult
    func write(_ text: String, to path: String = "ubiqd.toml") throws -> String {
        let full = home + "/" + path
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: false, encoding: .utf8)
        return full
    }

    func load(_ overrides: ConfigOverrides = ConfigOverrides(), extra: [String: String] = [:]) throws(ConfigError) -> AgentConfiguration {
        try ConfigLoader.load(overrides: overrides, environment: environment.merging(extra) { $1 }, hostName: "test-host")
    }

    /// Writes `text` as the config file and loads it with `overrides`.
    func load(file text: String, _ overrides: ConfigOverrides = ConfigOverrides()) throws -> AgentConfiguration {
        var overrides = overrides
        overrides.config = try write(text)
        return try load(overrides)
    }

    /// The error loading `text` (and `overrides`) gives, or nil if it loads.
    func error(file text: String? = nil, _ overrides: ConfigOverrides = ConfigOverrides()) throws -> ConfigError? {
        var overrides = overrides
        if let text { overrides.config = try write(text) }
        do {
            _ = try load(overrides)
            return nil
        } catch {
            return error
        }
    }
}
