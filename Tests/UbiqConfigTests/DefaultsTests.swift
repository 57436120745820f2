import Testing
import UbiqConfig
import UbiqModel

struct DefaultsTests {
    @Test func emptyHomeGivesTheDocumentedDefaults() throws {
        let home = try TestHome()
        let config = try home.load()

        #expect(config.stateDirectory == home.home + "/.local/state/ubiq")
        #expect(config.configFile == nil)
        #expect(config.deviceName == "test-host")
        #expect(config.listen == [try HostPort("[::]:22100")])
        #expect(config.listenIsDefault)
        #expect(config.peers.isEmpty)
        #expect(config.discovery)
        #expect(config.socketPath == home.home + "/.local/state/ubiq/agent.sock")
        #expect(config.containers == [
            ContainerSettings(id: try ContainerID("ubiq.drive"), path: home.home + "/Ubiquity/ubiq.drive", download: .all),
        ])
        #expect(config.kvstores.isEmpty)
        #expect(config.packageExtensions == ["pages", "numbers", "key", "rtfd", "bundle"])
        #expect(config.closeDelayMs == 2)
        #expect(config.modifyDelayMs == 200)
        #expect(config.maxDelayMs == 1000)
        #expect(config.keyValueLimits == KeyValueLimits(maxStoreBytes: 1_000_000, maxKeys: 1024, maxKeyBytes: 64, maxValueBytes: 1_000_000))
        #expect(config.logLevel == "info")
    }

    @Test func xdgVariablesMoveStateSocketAndConfigFile() throws {
        let home = try TestHome()
        let xdg = [
            "XDG_STATE_HOME": home.root + "/state",
            "XDG_RUNTIME_DIR": home.root + "/run",
            "XDG_CONFIG_HOME": home.root + "/conf",
        ]
        try home.write("[agent]\ndevice_name = \"from-xdg-config\"\n", to: "../conf/ubiq/ubiqd.toml")

        let config = try home.load(extra: xdg)

        #expect(config.stateDirectory == home.root + "/state/ubiq")
        #expect(config.socketPath == home.root + "/run/ubiq/agent.sock")
        #expect(config.configFile == home.root + "/conf/ubiq/ubiqd.toml")
        #expect(config.deviceName == "from-xdg-config")
    }

    @Test func readsTheDefaultConfigFileWhenPresent() throws {
        let home = try TestHome()
        let file = try home.write("[agent]\nlog_level = \"debug\"\n", to: ".config/ubiq/ubiqd.toml")

        let config = try home.load()

        #expect(config.configFile == file)
        #expect(config.logLevel == "debug")
    }

    @Test func noEnvironmentAtAllStillGivesAbsolutePaths() throws {
        let config = try ConfigLoader.load(overrides: ConfigOverrides(), environment: [:], hostName: "h")
        #expect(config.stateDirectory == "/.local/state/ubiq")
        #expect(config.containers.map(\.path) == ["/Ubiquity/ubiq.drive"])
    }

    @Test func emptyHostNameFallsBackToAName() throws {
        let home = try TestHome()
        let config = try ConfigLoader.load(overrides: ConfigOverrides(), environment: home.environment, hostName: "")
        #expect(!config.deviceName.isEmpty)
        #expect(!ConfigLoader.systemHostName().isEmpty)
    }

    @Test func watcherOptionsCarryTheDelays() throws {
        let home = try TestHome()
        let options = try home.load().watcherOptions
        #expect(options.closeDelay == .milliseconds(2))
        #expect(options.modifyDelay == .milliseconds(200))
        #expect(options.maxDelay == .seconds(1))
        #expect(options.packageExtensions.contains("rtfd"))
    }
}
