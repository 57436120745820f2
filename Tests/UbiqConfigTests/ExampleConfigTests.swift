import Foundation
import Testing
import UbiqConfig

/// `Config/ubiqd.toml` documents every option with its default, so loading it must give
/// exactly what no config file gives.
struct ExampleConfigTests {
    static let examplePath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config/ubiqd.toml").path

    @Test func exampleParsesToTheDefaults() throws {
        let home = try TestHome()
        var defaults = try home.load()
        let example = try home.load(ConfigOverrides(config: Self.examplePath))
        #expect(example.configFile == Self.examplePath)
        defaults.configFile = example.configFile
        #expect(example == defaults)
    }

    @Test func everyKeyOfTheLoaderIsDocumentedInTheExample() throws {
        let text = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        for key in ["state", "device_name", "listen", "socket", "discovery", "peers", "log_level",
                    "package_extensions", "close_delay_ms", "modify_delay_ms", "max_delay_ms",
                    "[[container]]", "id", "path", "download", "[[kvstore]]", "[kvstore_limits]",
                    "max_store_bytes", "max_keys", "max_key_bytes", "max_value_bytes", "[[peer_limit]]", "device",
                    "max_send_kib_per_second", "max_receive_kib_per_second", "[ui]", "enabled", "ui = false"] {
            #expect(text.contains(key), "\(key) is not documented in Config/ubiqd.toml")
        }
    }

    @Test func commentedExamplesParseWhenUncommented() throws {
        let text = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        // Lines like `# key = value` and `# [[table]]` are examples; single-# prose is not.
        let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            let body = line.dropFirst(2)
            let isExample = line.hasPrefix("# ") && (body.hasPrefix("[") || body.range(of: #"^[a-z_]+ = "#, options: .regularExpression) != nil)
            return isExample ? body : line
        }.joined(separator: "\n")
        let home = try TestHome()
        let config = try ConfigLoader.load(fileText: uncommented, file: "uncommented.toml",
                                           environment: home.environment, hostName: "h")
        #expect(config.containers.count == 2)
        #expect(config.kvstores == ["TEAMID.com.example.notes"])
        #expect(config.peers.count == 3)
        #expect(config.peerLimits.count == 1)
    }
}
