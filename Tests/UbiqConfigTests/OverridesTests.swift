import Testing
import UbiqConfig
import UbiqModel

struct OverridesTests {
    static let file = """
        [agent]
        state = "~/file-state"
        device_name = "from-file"
        listen = ["0.0.0.0:1000", "0.0.0.0:1001"]
        socket = "~/file.sock"
        discovery = true
        peers = ["a.lan:1", "b.lan:2"]
        log_level = "warning"

        [[container]]
        id = "file.one"
        [[container]]
        id = "file.two"

        [[kvstore]]
        id = "file.kv"
        """

    @Test func flagsWinOverTheFile() throws {
        let home = try TestHome()
        let config = try home.load(file: Self.file, ConfigOverrides(
            state: "~/flag-state", socket: "/tmp/flag.sock", deviceName: "from-flag", logLevel: "ERROR"))
        #expect(config.stateDirectory == home.home + "/flag-state")
        #expect(config.socketPath == "/tmp/flag.sock")
        #expect(config.deviceName == "from-flag")
        #expect(config.logLevel == "error")
    }

    @Test func repeatedFlagsReplaceTheFilesList() throws {
        let home = try TestHome()
        let config = try home.load(file: Self.file, ConfigOverrides(
            listen: ["127.0.0.1:2000"],
            peers: ["c.lan:3", "[::1]:4"],
            containers: ["flag.one=~/F1", "flag.two"],
            noDiscovery: true,
            kvstores: ["flag.kv"]))
        #expect(config.listen.map(\.description) == ["127.0.0.1:2000"])
        #expect(!config.listenIsDefault)
        #expect(config.peers.map(\.description) == ["c.lan:3", "[::1]:4"])
        #expect(config.containers == [
            ContainerSettings(id: try ContainerID("flag.one"), path: home.home + "/F1"),
            ContainerSettings(id: try ContainerID("flag.two"), path: home.home + "/Ubiquity/flag.two"),
        ])
        #expect(!config.discovery)
        #expect(config.kvstores == ["flag.kv"])
    }

    @Test func flagsNotGivenLeaveTheFileAlone() throws {
        let home = try TestHome()
        let config = try home.load(file: Self.file)
        #expect(config.deviceName == "from-file")
        #expect(config.discovery)
        #expect(config.listen.count == 2)
        #expect(!config.listenIsDefault)
        #expect(config.peers.count == 2)
        #expect(config.containers.map(\.id.rawValue) == ["file.one", "file.two"])
        #expect(config.kvstores == ["file.kv"])
        #expect(config.socketPath == home.home + "/file.sock")
    }

    @Test func containerFlagWithoutPathUsesUbiquityFolder() throws {
        let home = try TestHome()
        let config = try home.load(ConfigOverrides(containers: ["TEAMID.com.example.notes"]))
        #expect(config.containers == [
            ContainerSettings(id: try ContainerID("TEAMID.com.example.notes"), path: home.home + "/Ubiquity/TEAMID.com.example.notes"),
        ])
    }

    @Test func stateFlagMovesTheDefaultSocket() throws {
        let home = try TestHome()
        let config = try home.load(ConfigOverrides(state: home.root + "/s"))
        #expect(config.socketPath == home.root + "/s/agent.sock")
        let withRuntime = try home.load(ConfigOverrides(state: home.root + "/s"), extra: ["XDG_RUNTIME_DIR": "/run/user/7"])
        #expect(withRuntime.socketPath == "/run/user/7/ubiq/agent.sock")
    }

    @Test func configFlagExpandsTilde() throws {
        let home = try TestHome()
        try home.write("[agent]\ndevice_name = \"tilde\"\n", to: "conf/x.toml")
        let config = try home.load(ConfigOverrides(config: "~/conf/x.toml"))
        #expect(config.deviceName == "tilde")
        #expect(config.configFile == home.home + "/conf/x.toml")
    }
}
