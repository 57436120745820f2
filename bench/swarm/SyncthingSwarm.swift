import Foundation
import UbiqTestSupport

/// Syncthing on the LAN: one instance per host, each configured before its first start with
/// every other device at `tcp://198.18.0.N:22000` and discovery, relays, NAT and reporting
/// off (`SyncthingConfig`). Its watcher waits 10 s before it scans, so the writer's folder
/// is scanned through REST right after the rename, as `bench/run.py` does; that call is timed.
final class SyncthingSwarm: SwarmTool {
    let name = "Syncthing"
    let program = "syncthing"
    private(set) var version = "?"
    private var instances: [SyncthingInstance] = []

    func start(on lan: NamespaceLAN, in directory: TempDirectory) async throws {
        instances = try lan.hosts.map { try SyncthingInstance(host: $0, in: directory) }
        for instance in instances {
            try instance.configure(peers: instances.filter { $0 !== instance })
        }
        for instance in instances { try instance.start() }
        let instances = instances
        let all = Set(instances.map(\.deviceID))
        try await waitUntil("every Syncthing to connect to every other, with its folder idle", timeout: .seconds(180),
                            every: .milliseconds(200)) {
            for instance in instances {
                guard instance.isRunning else { throw BenchmarkError("Syncthing on \(instance.host.hostName) exited; see \(instance.log)") }
                guard let connected = try? instance.connectedDevices(),
                      connected == all.subtracting([instance.deviceID]),
                      let folder = try? instance.folderState(), folder.state == "idle", folder.needItems == 0 else { return false }
            }
            return true
        }
        let options = try instances[0].options()
        for (key, value) in SyncthingConfig.lockdown where !Self.reads(options[key], as: value) {
            throw BenchmarkError("Syncthing did not take \(key) = \(value) from its config (it reads \(options[key] ?? "nothing"))")
        }
        version = SyncthingInstance.version
    }

    /// Whether a JSON value of `/rest/config` is the config file's `text` (a bool or an integer).
    private static func reads(_ value: Any?, as text: String) -> Bool {
        if let expected = Bool(text) { return (value as? Bool) == expected }
        return (value as? NSNumber)?.intValue == Int(text)
    }

    func folder(_ index: Int) -> String { instances[index - 1].folder }

    func placed(_ relativePath: String) async throws {
        try instances[0].scan(relativePath)
    }

    func stop() {
        for instance in instances { instance.stop() }
    }
}
