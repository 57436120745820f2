/// The `config.xml` each Syncthing instance starts with, written before its first start
/// over the one `syncthing generate` made (whose certificate and key it keeps): the lockdown
/// of `bench/syncthing_side.py` (docs/benchmarks.md, "How Syncthing runs"), so that nothing
/// announces, relays, maps ports or reports; the only listener on the host's LAN address;
/// REST on a Unix socket; every other device at its static address; and one folder shared
/// by all, with every field of the generated folder defaults written out (Syncthing does not
/// fill in a missing field of a folder, it leaves it zero).
struct SyncthingConfig {
    /// A device: its ID, name and `tcp://ADDRESS:PORT` (`dynamic` for the instance itself).
    struct Device {
        var id: String
        var name: String
        var address: String
    }

    static let folderID = "bench"
    static let port = 22000
    /// Rescans come from the benchmark (and the watcher); none on a timer.
    static let rescanIntervalSeconds = 86400

    var me: Device
    var peers: [Device]
    var listenAddress: String
    var folderPath: String
    var guiSocket: String
    var apiKey: String

    /// Options set before the first start; everything else keeps Syncthing's defaults.
    static let lockdown: [(String, String)] = [
        ("globalAnnounceEnabled", "false"),
        ("localAnnounceEnabled", "false"),
        ("relaysEnabled", "false"),
        ("natEnabled", "false"),
        ("urAccepted", "-1"),
        ("urSeen", "3"),
        ("crashReportingEnabled", "false"),
        ("autoUpgradeIntervalH", "0"),
        ("startBrowser", "false"),
        ("announceLANAddresses", "false"),
        ("stunKeepaliveStartS", "0"),
        ("stunKeepaliveMinS", "0"),
        ("setLowPriority", "false"),
    ]

    var xml: String {
        let devices = ([me] + peers)
        let folderDevices = devices.map {
            "            <device id=\"\($0.id)\" introducedBy=\"\"><encryptionPassword></encryptionPassword></device>"
        }
        let deviceElements = devices.map { device in
            """
                <device id="\(device.id)" name="\(device.name)" compression="metadata" introducer="false" skipIntroductionRemovals="false" introducedBy="">
                    <address>\(device.address)</address>
                    <paused>false</paused>
                    <autoAcceptFolders>false</autoAcceptFolders>
                    <maxSendKbps>0</maxSendKbps>
                    <maxRecvKbps>0</maxRecvKbps>
                    <maxRequestKiB>0</maxRequestKiB>
                    <untrusted>false</untrusted>
                    <remoteGUIPort>0</remoteGUIPort>
                </device>
            """
        }
        let options = Self.lockdown.map { "        <\($0.0)>\($0.1)</\($0.0)>" }
        return """
            <configuration version="36">
                <folder id="\(Self.folderID)" label="\(Self.folderID)" path="\(folderPath)" type="sendreceive" rescanIntervalS="\(Self.rescanIntervalSeconds)" fsWatcherEnabled="true" fsWatcherDelayS="10" ignorePerms="false" autoNormalize="true">
                    <filesystemType>basic</filesystemType>
            \(folderDevices.joined(separator: "\n"))
                    <minDiskFree unit="%">1</minDiskFree>
                    <versioning>
                        <cleanupIntervalS>3600</cleanupIntervalS>
                        <fsPath></fsPath>
                        <fsType>basic</fsType>
                    </versioning>
                    <copiers>0</copiers>
                    <pullerMaxPendingKiB>0</pullerMaxPendingKiB>
                    <hashers>0</hashers>
                    <order>random</order>
                    <ignoreDelete>false</ignoreDelete>
                    <scanProgressIntervalS>0</scanProgressIntervalS>
                    <pullerPauseS>0</pullerPauseS>
                    <maxConflicts>10</maxConflicts>
                    <disableSparseFiles>false</disableSparseFiles>
                    <disableTempIndexes>false</disableTempIndexes>
                    <paused>false</paused>
                    <weakHashThresholdPct>25</weakHashThresholdPct>
                    <markerName>.stfolder</markerName>
                    <copyOwnershipFromParent>false</copyOwnershipFromParent>
                    <modTimeWindowS>0</modTimeWindowS>
                    <maxConcurrentWrites>2</maxConcurrentWrites>
                    <disableFsync>false</disableFsync>
                    <blockPullOrder>standard</blockPullOrder>
                    <copyRangeMethod>standard</copyRangeMethod>
                    <caseSensitiveFS>false</caseSensitiveFS>
                    <junctionsAsDirs>false</junctionsAsDirs>
                </folder>
            \(deviceElements.joined(separator: "\n"))
                <gui enabled="true" tls="false" debugging="false">
                    <address>\(guiSocket)</address>
                    <apikey>\(apiKey)</apikey>
                    <theme>default</theme>
                </gui>
                <options>
                    <listenAddress>\(listenAddress)</listenAddress>
            \(options.joined(separator: "\n"))
                </options>
            </configuration>

            """
    }
}
