import UbiqModel

extension ConfigLayer {
    /// Fills what the layer leaves open from `AgentConfiguration.defaults` and checks the rules that span keys:
    /// unique ids, containers apart from each other and from the state directory, delays in
    /// order.
    func resolved(paths: DefaultPaths, hostName: String) throws(ConfigError) -> AgentConfiguration {
        let defaults = AgentConfiguration.defaults(paths: paths, hostName: hostName)
        var config = defaults
        if let state {
            config.stateDirectory = state
            config.socketPath = PathRules.normalised(paths.controlSocket(stateDirectory: state))
        }
        config.socketPath = try ValueRules.socketPath(socket ?? config.socketPath)
        config.deviceName = deviceName ?? defaults.deviceName
        config.listen = listen ?? defaults.listen
        config.listenIsDefault = listen == nil
        config.peers = peers ?? defaults.peers
        config.discovery = discovery ?? defaults.discovery
        config.joinPort = joinPort ?? config.listen.first.map { $0.port == 0 || $0.port == 65535 ? 0 : $0.port + 1 } ?? 0
        config.logLevel = logLevel ?? defaults.logLevel
        config.maxSendKiBPerSecond = maxSendKiB
        config.maxReceiveKiBPerSecond = maxReceiveKiB
        config.peerLimits = peerLimits ?? []
        config.ui = uiEnabled == false ? nil : uiListen ?? defaults.ui
        config.packageExtensions = packageExtensions ?? defaults.packageExtensions
        config.closeDelayMs = closeDelayMs ?? defaults.closeDelayMs
        config.modifyDelayMs = modifyDelayMs ?? defaults.modifyDelayMs
        config.maxDelayMs = maxDelayMs ?? defaults.maxDelayMs
        config.keyValueLimits = KeyValueLimits(
            maxStoreBytes: maxStoreBytes ?? defaults.keyValueLimits.maxStoreBytes,
            maxKeys: maxKeys ?? defaults.keyValueLimits.maxKeys,
            maxKeyBytes: maxKeyBytes ?? defaults.keyValueLimits.maxKeyBytes,
            maxValueBytes: maxValueBytes ?? defaults.keyValueLimits.maxValueBytes
        )
        if config.maxDelayMs < max(config.modifyDelayMs, config.closeDelayMs) {
            let reason = "max_delay_ms (\(config.maxDelayMs)) is shorter than close_delay_ms (\(config.closeDelayMs)) or modify_delay_ms (\(config.modifyDelayMs)); raise max_delay_ms"
            throw (delayOrigin ?? .defaults).error(.invalidValue, reason)
        }
        if let containers {
            try Self.checkApart(containers, stateDirectory: config.stateDirectory)
            config.containers = containers.map(\.settings)
        } else {
            try Self.checkApart(defaults.containers.map { Container(settings: $0, origin: .defaults) },
                                stateDirectory: config.stateDirectory)
        }
        if let kvstores {
            var seen: [String: ConfigOrigin] = [:]
            for store in kvstores {
                if let first = seen[store.id] {
                    throw store.origin.error(.duplicateContainer, "key-value store \(store.id) is listed twice (also at \(first.label)); remove one")
                }
                seen[store.id] = store.origin
            }
            config.kvstores = kvstores.map(\.id)
        }
        return config
    }

    private static func checkApart(_ containers: [Container], stateDirectory: String) throws(ConfigError) {
        for (index, container) in containers.enumerated() {
            let settings = container.settings
            for earlier in containers[..<index] {
                if earlier.settings.id == settings.id {
                    throw container.origin.error(.duplicateContainer, "container \(settings.id) is listed twice (also at \(earlier.origin.label)); remove one")
                }
                if PathRules.overlap(earlier.settings.path, settings.path) {
                    throw container.origin.error(.overlappingPaths, "the folder of container \(settings.id) (\(settings.path)) overlaps that of \(earlier.settings.id) (\(earlier.settings.path)); give each container its own folder, not inside another")
                }
            }
            if PathRules.overlap(settings.path, stateDirectory) {
                throw container.origin.error(.overlappingPaths, "the folder of container \(settings.id) (\(settings.path)) overlaps the state directory \(stateDirectory); move one of them")
            }
        }
    }
}
