import UbiqModel

extension ConfigLayer {
    /// The layer the command line gives; an empty repeatable flag says nothing.
    init(overrides: ConfigOverrides, paths: DefaultPaths) throws(ConfigError) {
        func flag<T>(_ name: String, _ check: () throws(ConfigError) -> T) throws(ConfigError) -> T {
            do {
                return try check()
            } catch {
                throw ConfigOrigin.flag(name).error(error.code, error.reason)
            }
        }

        self.init()
        if let raw = overrides.state {
            state = try flag("--state") { () throws(ConfigError) in try PathRules.absolute(raw, paths: paths, what: "state directory") }
        }
        if let raw = overrides.socket {
            socket = try flag("--socket") { () throws(ConfigError) in try PathRules.absolute(raw, paths: paths, what: "socket") }
        }
        if let raw = overrides.deviceName {
            deviceName = try flag("--device-name") { () throws(ConfigError) in try ValueRules.deviceName(raw) }
        }
        if let raw = overrides.logLevel {
            logLevel = try flag("--log-level") { () throws(ConfigError) in try ValueRules.logLevel(raw) }
        }
        if overrides.noDiscovery { discovery = false }
        if overrides.noUI { uiEnabled = false }
        if let port = overrides.joinPort {
            joinPort = try flag("--join-port") { () throws(ConfigError) in try ValueRules.joinPort(port) }
        }
        if let raw = overrides.uiListen {
            uiListen = try flag("--ui-listen") { () throws(ConfigError) in try HostPort(raw, allowPortZero: true) }
        }
        if !overrides.listen.isEmpty {
            var result: [HostPort] = []
            for raw in overrides.listen {
                result.append(try flag("--listen") { () throws(ConfigError) in try HostPort(raw, allowPortZero: true) })
            }
            listen = result
        }
        if !overrides.peers.isEmpty {
            var result: [HostPort] = []
            for raw in overrides.peers {
                result.append(try flag("--peer") { () throws(ConfigError) in try HostPort(raw) })
            }
            peers = result
        }
        if !overrides.containers.isEmpty {
            var result: [Container] = []
            for raw in overrides.containers {
                let settings = try flag("--container") { () throws(ConfigError) in try Self.container(raw, paths: paths) }
                result.append(Container(settings: settings, origin: .flag("--container")))
            }
            containers = result
        }
        if !overrides.kvstores.isEmpty {
            var result: [Store] = []
            for raw in overrides.kvstores {
                let id = try flag("--kvstore") { () throws(ConfigError) in try ValueRules.containerID(raw) }
                result.append(Store(id: id.rawValue, origin: .flag("--kvstore")))
            }
            kvstores = result
        }
    }

    /// `ID` or `ID=PATH`.
    private static func container(_ raw: String, paths: DefaultPaths) throws(ConfigError) -> ContainerSettings {
        let parts = raw.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let id = try ValueRules.containerID(String(parts[0]))
        let path = parts.count == 2
            ? try PathRules.absolute(String(parts[1]), paths: paths, what: "folder of container \(id)")
            : PathRules.normalised(paths.containerFolder(id))
        return ContainerSettings(id: id, path: path)
    }
}
