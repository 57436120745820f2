import Foundation
import UbiqTestSupport

/// One Syncthing process on a LAN host: its home (certificate, key, config, database), its
/// synced folder, and its REST API on a Unix socket in its home. It runs the syncing process
/// itself, without the monitor parent (`STMONITORED`), so that its CPU time is what is counted.
final class SyncthingInstance {
    let host: LANHost
    let home: String
    let folder: String
    let deviceID: String
    let apiKey = UUID().uuidString
    private var process: Process?

    var guiSocket: String { home + "/rest.sock" }
    var log: String { home + "/syncthing.log" }
    var device: SyncthingConfig.Device {
        SyncthingConfig.Device(id: deviceID, name: host.hostName, address: "tcp://\(host.address):\(SyncthingConfig.port)")
    }

    private var environment: [String: String] {
        ["HOME": home, "STNODEFAULTFOLDER": "1", "STNOUPGRADE": "1", "STNORESTART": "1", "STMONITORED": "yes", "STTRACE": ""]
    }

    /// Makes the home with `syncthing generate` (offline: a certificate and a default config)
    /// and the folder with its `.stfolder` marker.
    init(host: LANHost, in directory: TempDirectory) throws {
        self.host = host
        home = directory.appending("h\(host.index)/syncthing")
        folder = directory.appending("h\(host.index)/folder")
        try FileManager.default.createDirectory(atPath: folder + "/.stfolder", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/Documents", withIntermediateDirectories: true)
        _ = try Self.syncthing(["generate", "--home", home, "--no-default-folder", "--skip-port-probing"], home: home)
        deviceID = try Self.syncthing(["serve", "--device-id", "--home", home], home: home)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes the config that names `peers` (before the first start).
    func configure(peers: [SyncthingInstance]) throws {
        let me = SyncthingConfig.Device(id: deviceID, name: host.hostName, address: "dynamic")
        let config = SyncthingConfig(me: me, peers: peers.map(\.device),
                                     listenAddress: "tcp://\(host.address):\(SyncthingConfig.port)",
                                     folderPath: folder, guiSocket: guiSocket, apiKey: apiKey)
        try config.xml.write(toFile: home + "/config.xml", atomically: true, encoding: .utf8)
    }

    func start() throws {
        let path = Self.executable ?? "syncthing"
        process = try host.spawn([path, "serve", "--home", home, "--no-browser", "--no-restart", "--no-upgrade",
                                  "--no-default-folder", "--skip-port-probing"], environment: environment, log: log)
    }

    var isRunning: Bool { process?.isRunning ?? false }

    /// SIGTERM, and SIGKILL after 10 s.
    func stop() {
        guard let process else { return }
        if process.isRunning { process.terminate() }
        for _ in 0..<1000 where process.isRunning { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        self.process = nil
    }

    // MARK: REST

    /// A REST call's decoded JSON answer (nil for an empty body); throws on a status other than 200.
    func rest(_ method: String, _ target: String, timeout: Duration = .seconds(10)) throws -> Any? {
        let response = try UnixSocketHTTP.request(socket: guiSocket, method: method, target: target,
                                                  headers: ["X-API-Key": apiKey], timeout: timeout)
        guard response.status == 200 else {
            throw BenchmarkError("Syncthing on \(host.hostName): \(method) \(target) answered \(response.status): "
                + String(decoding: response.body, as: UTF8.self))
        }
        let text = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    /// The device IDs this instance is connected to.
    func connectedDevices() throws -> Set<String> {
        guard let answer = try rest("GET", "/rest/system/connections") as? [String: Any],
              let connections = answer["connections"] as? [String: [String: Any]] else { return [] }
        return Set(connections.filter { $0.value["connected"] as? Bool == true }.keys)
    }

    /// The folder's `state` (`idle`, `scanning`, `syncing`, …) and the items it still needs.
    func folderState() throws -> (state: String, needItems: Int) {
        let status = try rest("GET", "/rest/db/status?folder=\(SyncthingConfig.folderID)") as? [String: Any] ?? [:]
        return (status["state"] as? String ?? "?", (status["needTotalItems"] as? NSNumber)?.intValue ?? -1)
    }

    /// Scans `path` of the folder; the call answers once the scan is done.
    func scan(_ path: String) throws {
        let sub = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? path
        _ = try rest("POST", "/rest/db/scan?folder=\(SyncthingConfig.folderID)&sub=\(sub)", timeout: .seconds(600))
    }

    /// The options as the running instance read them, to check that the lockdown took.
    func options() throws -> [String: Any] {
        (try rest("GET", "/rest/config") as? [String: Any])?["options"] as? [String: Any] ?? [:]
    }

    // MARK: the program

    static let executable: String? = {
        for folder in ["/usr/bin", "/usr/local/bin", "/bin"] where access(folder + "/syncthing", X_OK) == 0 {
            return folder + "/syncthing"
        }
        return nil
    }()

    /// `syncthing` run to completion in the machine's own namespace (only for offline
    /// commands); its standard output.
    static func syncthing(_ arguments: [String], home: String) throws -> String {
        guard let executable else { throw BenchmarkError("syncthing not found; apt-get install -y syncthing") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["HOME": home, "STNODEFAULTFOLDER": "1"]) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("syncthing \(arguments.joined(separator: " ")) failed (\(process.terminationStatus))")
        }
        return String(decoding: output, as: UTF8.self)
    }

    static var version: String {
        let words = ((try? syncthing(["--version"], home: "/nonexistent")) ?? "").split(separator: " ")
        return words.count > 1 ? String(words[1]) : "?"
    }
}
