import Foundation
import Testing
import UbiqConfig

struct BadInputTests {
    @Test func unknownKeyNamesKeyLineAndSuggestion() throws {
        let home = try TestHome()
        let error = try #require(try home.error(file: """
            [agent]
            discovery = false
            listn = ["0.0.0.0:1"]
            """))
        #expect(error.code == .unknownKey)
        #expect(error.line == 3)
        #expect(error.file == home.home + "/ubiqd.toml")
        #expect(error.reason.contains("'listn'"))
        #expect(error.reason.contains("did you mean 'listen'"))
    }

    /// Text without its quotes, which toml++ reports as a number it could not parse, is
    /// named as what it is.
    @Test func textWithoutQuotesSaysToQuoteIt() throws {
        let home = try TestHome()
        let error = try #require(try home.error(file: "[agent]\ndiscovery = false\nlog_level = info   # chatty\n"))
        #expect(error.code == .syntax)
        #expect(error.line == 3)
        #expect(error.reason.contains("write log_level = \"info\""), "\(error.reason)")
        #expect(!error.reason.contains("floating"), "\(error.reason)")
        let path = try #require(try home.error(file: "[agent]\nstate = /tmp/state\n"))
        #expect(path.reason.contains("write state = \"/tmp/state\""), "\(path.reason)")
        // A number or a boolean keeps toml++'s own message.
        let number = try #require(try home.error(file: "[sync]\nclose_delay_ms = 12x\n"))
        #expect(!number.reason.contains("needs quotes"), "\(number.reason)")
    }

    @Test func joinPortIsAPort() throws {
        let home = try TestHome()
        let error = try #require(try home.error(file: "[agent]\njoin_port = 70000\n"))
        #expect(error.code == .invalidValue && error.reason.contains("join port") && error.line == 2, "\(error.reason)")
    }

    @Test func unknownKeyInSecondContainerAndAtTopLevel() throws {
        let home = try TestHome()
        let inContainer = try #require(try home.error(file: """
            [[container]]
            id = "a.b"

            [[container]]
            id = "c.d"
            pth = "~/x"
            """))
        #expect(inContainer.code == .unknownKey)
        #expect(inContainer.line == 6)
        #expect(inContainer.reason.contains("[[container]] #2"))

        let topLevel = try #require(try home.error(file: "# comment\n[agnet]\nstate = \"~/s\"\n"))
        #expect(topLevel.code == .unknownKey)
        #expect(topLevel.line == 2)
        #expect(topLevel.reason.contains("did you mean 'agent'"))
    }

    @Test(arguments: [
        ("[agent]\ndiscovery = \"yes\"", "discovery", "true or false"),
        ("[agent]\nlisten = \"0.0.0.0:1\"", "listen", "an array of strings"),
        ("[agent]\npeers = [\n  \"a.lan:1\",\n  2,\n]", "peers", "an array of strings"),
        ("[sync]\nclose_delay_ms = 2.5", "close_delay_ms", "an integer"),
        ("[agent]\nstate = 1", "state", "a string"),
        ("agent = 3", "agent", "a table"),
        ("container = \"a.b\"", "container", "an array of tables"),
        ("[container]\nid = \"a.b\"", "container", "an array of tables"),
    ])
    func wrongTypeSaysKeyAndExpectedType(text: String, key: String, expected: String) throws {
        let home = try TestHome()
        let error = try #require(try home.error(file: text))
        #expect(error.code == .wrongType)
        #expect(error.reason.contains("'\(key)'"))
        #expect(error.reason.contains(expected))
        #expect(error.line != nil)
    }

    @Test func badHostPortInFileAndFlags() throws {
        let home = try TestHome()
        let inFile = try #require(try home.error(file: "[agent]\n\npeers = [\"a.lan:99999\"]\n"))
        #expect(inFile.code == .invalidHostPort)
        #expect(inFile.line == 3)
        #expect(try home.error(ConfigOverrides(listen: ["nohost"]))?.code == .invalidHostPort)
        #expect(try home.error(ConfigOverrides(peers: ["a.lan:0"]))?.code == .invalidHostPort)
        #expect(try home.error(ConfigOverrides(peers: ["a.lan:0"]))?.reason.hasPrefix("--peer") == true)
    }

    @Test func badContainerID() throws {
        let home = try TestHome()
        let inFile = try #require(try home.error(file: "[[container]]\nid = \"notes\"\n"))
        #expect(inFile.code == .invalidContainerID)
        #expect(inFile.line == 2)
        #expect(try home.error(ConfigOverrides(containers: ["TEAM*.com.x"]))?.code == .invalidContainerID)
        #expect(try home.error(ConfigOverrides(kvstores: ["bad id.x"]))?.code == .invalidContainerID)
        #expect(try home.error(file: "[[container]]\npath = \"~/x\"\n")?.code == .missingKey)
    }

    @Test func duplicateContainersAndStores() throws {
        let home = try TestHome()
        let inFile = try #require(try home.error(file: """
            [[container]]
            id = "a.b"
            [[container]]
            id = "a.b"
            path = "/elsewhere"
            """))
        #expect(inFile.code == .duplicateContainer)
        #expect(inFile.line == 4)
        #expect(inFile.reason.contains("line 2"))
        #expect(try home.error(ConfigOverrides(containers: ["a.b=/x", "a.b=/y"]))?.code == .duplicateContainer)
        #expect(try home.error(ConfigOverrides(kvstores: ["a.b", "a.b"]))?.code == .duplicateContainer)
    }

    @Test func containersMustNotShareOrNestFolders() throws {
        let home = try TestHome()
        #expect(try home.error(ConfigOverrides(containers: ["a.b=/data/x", "c.d=/data/x/"]))?.code == .overlappingPaths)
        #expect(try home.error(ConfigOverrides(containers: ["a.b=/data/x", "c.d=/data/x/inner"]))?.code == .overlappingPaths)
        #expect(try home.error(ConfigOverrides(containers: ["a.b=/data/x/inner", "c.d=/data/x"]))?.code == .overlappingPaths)
        #expect(try home.error(ConfigOverrides(containers: ["a.b=/data/x", "c.d=/data/xy"])) == nil)
        #expect(try home.error(ConfigOverrides(containers: ["a.b=~"]))?.code == .overlappingPaths)
        #expect(try home.error(ConfigOverrides(state: "~/Ubiquity/ubiq.drive/.state"))?.code == .overlappingPaths)
    }

    @Test func pathsMustBeAbsolute() throws {
        let home = try TestHome()
        #expect(try home.error(ConfigOverrides(state: "relative/state"))?.code == .invalidPath)
        #expect(try home.error(ConfigOverrides(containers: ["a.b=rel"]))?.code == .invalidPath)
        #expect(try home.error(file: "[agent]\nsocket = \"~other/s\"\n")?.code == .invalidPath)
        let long = "/" + String(repeating: "s", count: 120)
        #expect(try home.error(ConfigOverrides(socket: long))?.code == .invalidPath)
    }

    @Test func outOfRangeValues() throws {
        let home = try TestHome()
        #expect(try home.error(file: "[agent]\nlog_level = \"loud\"\n")?.code == .invalidValue)
        #expect(try home.error(ConfigOverrides(logLevel: "loud"))?.code == .invalidValue)
        #expect(try home.error(ConfigOverrides(deviceName: ""))?.code == .invalidValue)
        #expect(try home.error(file: "[sync]\nclose_delay_ms = -1\n")?.code == .invalidValue)
        let pattern = try #require(try home.error(file: "[[container]]\nid = \"TEAMID.com.example.a\"\nignore = [\"ok\", \"[broken\"]\n"))
        #expect(pattern.code == .invalidValue && pattern.line == 3 && pattern.reason.contains("ignore pattern 2 '[broken'"), "\(pattern)")
        for bad in ["history_max_age_days = 0", "history_max_disk_percent = 101", "history = \"yes\"", "ignore = \"*.log\"", "mode = \"receive\"",
                    "ignore_defaults = 1"] {
            #expect(try home.error(file: "[[container]]\nid = \"TEAMID.com.example.a\"\n\(bad)\n")?.code != nil, "\(bad)")
        }
        #expect(try home.error(file: "[sync]\npackage_extensions = [\"a/b\"]\n")?.code == .invalidValue)
        #expect(try home.error(file: "[kvstore_limits]\nmax_keys = 0\n")?.code == .invalidValue)
        for bad in ["max_send_kib_per_second = 0", "max_receive_kib_per_second = -1", "max_send_kib_per_second = 999999999999"] {
            #expect(try home.error(file: "[agent]\n\(bad)\n")?.code == .invalidValue, "\(bad)")
        }
        #expect(try home.error(file: "[kvstore_limits]\nmax_value_bytes = 4194305\n")?.code == .invalidValue)
        let twice = "[[peer_limit]]\ndevice = \"ABCDEFGH\"\nmax_send_kib_per_second = 8\n"
        let duplicate = try #require(try home.error(file: twice + twice))
        #expect(duplicate.code == .invalidValue && duplicate.line == 5 && duplicate.reason.contains("two [[peer_limit]]"), "\(duplicate)")
        for (bad, code) in [("device = \"laptop\"\nmax_send_kib_per_second = 8", ConfigError.Code.invalidValue),
                            ("max_send_kib_per_second = 8", .missingKey), ("device = \"ABCDEFGH\"", .missingKey),
                            ("device = \"ABCDEFGH\"\nmax_receive_kib_per_second = 0", .invalidValue),
                            ("device = \"ABCDEFGH\"\nmax_send_kib_per_second = 8\nmax_rate = 8", .unknownKey)] {
            #expect(try home.error(file: "[[peer_limit]]\n\(bad)\n")?.code == code, "\(bad)")
        }
        #expect(try home.error(file: "[[container]]\nid = \"a.b\"\ndownload = \"some\"\n")?.code == .invalidValue)
        let delays = try #require(try home.error(file: "[sync]\nmodify_delay_ms = 100\nmax_delay_ms = 50\n"))
        #expect(delays.code == .invalidValue)
        #expect(delays.line == 3)
    }

    @Test func fileProblems() throws {
        let home = try TestHome()
        #expect(try home.error(ConfigOverrides(config: home.home + "/missing.toml"))?.code == .configFileNotFound)
        #expect(try home.error(ConfigOverrides(config: home.home))?.code == .unreadableConfigFile)
        // A file over 1 MiB is refused after a bounded read; this one (NUL bytes, which toml++
        // took for the end of the text) used to load as an empty config.
        let large = try home.write("")
        #expect(truncate(large, 2 << 20) == 0)
        #expect(try home.error(ConfigOverrides(config: large))?.code == .unreadableConfigFile)
        let syntax = try #require(try home.error(file: "[agent]\nlisten = [\"a:1\"\n\n"))
        #expect(syntax.code == .syntax)
        #expect(syntax.line != nil)
    }
}
