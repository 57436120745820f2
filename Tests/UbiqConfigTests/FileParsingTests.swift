import Testing
import UbiqConfig
import UbiqModel

struct FileParsingTests {
    @Test func readsEveryKey() throws {
        let home = try TestHome()
        let config = try home.load(file: """
            [agent]
            state = "~/state"
            device_name = "laptop"
            listen = ["127.0.0.1:0", "[::1]:22101"]
            socket = "~/run/agent.sock"
            discovery = false
            peers = ["192.168.1.20:22100", "desk.lan:9"]
            log_level = "debug"
            max_send_kib_per_second = 8192
            max_receive_kib_per_second = 512
            join_port = 4100

            [sync]
            package_extensions = ["pages", ".Sketch", "pages"]
            close_delay_ms = 5
            modify_delay_ms = 300
            max_delay_ms = 2000

            [[container]]
            id = "TEAMID.com.example.notes"
            path = "~/Notes/"
            download = "on-demand"
            extended_attributes = false
            ignore_permissions = true
            history = false
            history_max_age_days = 30
            history_max_disk_percent = 5
            ignore = ["*.log", "build/"]
            ignore_defaults = false
            mode = "send-only"

            [[container]]
            id = "TEAMID.com.example.photos"
            mode = "receive-only"

            [[kvstore]]
            id = "TEAMID.com.example.notes"

            [[kvstore]]
            id = "TEAMID.com.example.settings"

            [kvstore_limits]
            max_store_bytes = 2000
            max_keys = 10
            max_key_bytes = 16
            max_value_bytes = 500

            [[peer_limit]]
            device = "ABCDEFGH-IJKLMNOP"
            max_send_kib_per_second = 256

            [[peer_limit]]
            device = "QRSTUVWX-YZ234567"
            max_receive_kib_per_second = 64
            """)

        let h = home.home
        #expect(config.configFile == h + "/ubiqd.toml")
        #expect(config.stateDirectory == h + "/state")
        #expect(config.deviceName == "laptop")
        #expect(config.listen == [try HostPort("127.0.0.1:0", allowPortZero: true), try HostPort("[::1]:22101")])
        #expect(config.peerLimits == [PeerLimit(device: DeviceID("ABCDEFGH-IJKLMNOP"), maxSendKiBPerSecond: 256),
                                      PeerLimit(device: DeviceID("QRSTUVWX-YZ234567"), maxReceiveKiBPerSecond: 64)])
        #expect(config.socketPath == h + "/run/agent.sock")
        #expect(!config.discovery)
        #expect(config.peers.map(\.description) == ["192.168.1.20:22100", "desk.lan:9"])
        #expect(config.logLevel == "debug")
        #expect(config.joinPort == 4100)
        #expect(config.maxSendKiBPerSecond == 8192 && config.maxReceiveKiBPerSecond == 512)
        #expect(config.packageExtensions == ["pages", "sketch"])
        #expect(config.closeDelayMs == 5)
        #expect(config.modifyDelayMs == 300)
        #expect(config.maxDelayMs == 2000)
        var notes = ContainerSettings(id: try ContainerID("TEAMID.com.example.notes"), path: h + "/Notes", download: .onDemand,
                                      extendedAttributes: false, ignorePermissions: true,
                                      history: HistorySettings(enabled: false, maximumAgeDays: 30, maximumDiskPercent: 5),
                                      ignore: ["*.log", "build/"], ignoreDefaults: false)
        notes.mode = .sendOnly
        var photos = ContainerSettings(id: try ContainerID("TEAMID.com.example.photos"), path: h + "/Ubiquity/TEAMID.com.example.photos", download: .all)
        photos.mode = .receiveOnly
        #expect(config.containers == [notes, photos])
        #expect(config.kvstores == ["TEAMID.com.example.notes", "TEAMID.com.example.settings"])
        #expect(config.keyValueLimits == KeyValueLimits(maxStoreBytes: 2000, maxKeys: 10, maxKeyBytes: 16, maxValueBytes: 500))
    }

    @Test func keysLeftOutKeepTheirDefaults() throws {
        let home = try TestHome()
        let config = try home.load(file: "[sync]\nmax_delay_ms = 5000\n")
        #expect(config.maxDelayMs == 5000)
        #expect(config.modifyDelayMs == 200)
        #expect(config.listen.map(\.description) == ["[::]:22100"])
        #expect(config.listenIsDefault)
        #expect(config.joinPort == 22101, "the join port is the sync port's next")
        #expect(config.containers.map(\.id.rawValue) == ["ubiq.drive"])
    }

    @Test func inlineTablesAndDottedKeysAreTheSameSettings() throws {
        let home = try TestHome()
        let config = try home.load(file: """
            agent = { discovery = false }
            sync.close_delay_ms = 7
            """)
        #expect(!config.discovery)
        #expect(config.closeDelayMs == 7)
    }

    @Test func emptyFileGivesDefaults() throws {
        let home = try TestHome()
        var expected = try home.load()
        let config = try home.load(file: "# nothing here\n")
        expected.configFile = config.configFile
        #expect(config == expected)
    }

    @Test func pathsAreExpandedAndNormalised() throws {
        let home = try TestHome()
        let config = try home.load(file: """
            [agent]
            state = "~"
            [[container]]
            id = "a.b"
            path = "/srv//sync/./x/../a.b/"
            """)
        #expect(config.stateDirectory == home.home)
        #expect(config.socketPath == home.home + "/agent.sock")
        #expect(config.containers.map(\.path) == ["/srv/sync/a.b"])
    }

    @Test func loadsTextWithoutADisk() throws {
        let config = try ConfigLoader.load(
            fileText: "[agent]\npeers = [\"10.0.0.2:22100\"]\n", file: "inline.toml",
            environment: ["HOME": "/home/u"], hostName: "h")
        #expect(config.peers.map(\.description) == ["10.0.0.2:22100"])
        #expect(config.configFile == "inline.toml")
        #expect(config.stateDirectory == "/home/u/.local/state/ubiq")
    }
}

/// The web page's settings: on at 127.0.0.1:22180 unless the file or a flag says otherwise.
struct WebPageConfigTests {
    @Test func thePageIsOnAtLoopbackByDefault() throws {
        #expect(try TestHome().load().ui == HostPort("127.0.0.1:22180"))
    }

    @Test func theFileMovesOrTurnsOffThePage() throws {
        let home = try TestHome()
        #expect(try home.load(file: "ui = false\n").ui == nil)
        #expect(try home.load(file: "[ui]\nenabled = false\nlisten = \"127.0.0.1:9\"\n").ui == nil)
        #expect(try home.load(file: "[ui]\nlisten = \"[::1]:8080\"\n").ui == HostPort("[::1]:8080"))
        #expect(try home.load(file: "ui.listen = \"0.0.0.0:0\"\n").ui == HostPort("0.0.0.0:0", allowPortZero: true))
    }

    @Test func flagsWinOverTheFile() throws {
        let home = try TestHome()
        let file = "[ui]\nlisten = \"127.0.0.1:9000\"\n"
        #expect(try home.load(file: file, ConfigOverrides(noUI: true)).ui == nil)
        #expect(try home.load(file: file, ConfigOverrides(uiListen: "127.0.0.1:0")).ui == HostPort("127.0.0.1:0", allowPortZero: true))
    }

    @Test func badSettingsSayWhatToWrite() throws {
        let home = try TestHome()
        for (text, expected) in [
            ("[ui]\nlisten = \"localhost\"\n", "has no port"),
            ("[ui]\nport = 22180\n", "unknown key 'port'"),
            ("ui = \"off\"\n", "a table"),
            ("[ui]\nenabled = \"no\"\n", "true or false"),
        ] {
            let error = try #require(try home.error(file: text), "\(text) loaded")
            #expect("\(error)".contains(expected), "\(text): \(error)")
        }
    }
}
