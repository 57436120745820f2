import Foundation
import TOMLKit
import UbiqModel

extension ConfigLayer {
    /// The keys of `Config/ubiqd.toml`, by table; anything else is refused.
    enum Keys {
        static let top = ["agent", "sync", "container", "kvstore", "kvstore_limits", "peer_limit", "ui"]
        static let agent = ["state", "device_name", "listen", "socket", "discovery", "peers", "log_level", "max_send_kib_per_second",
                            "max_receive_kib_per_second", "join_port"]
        static let sync = ["package_extensions", "close_delay_ms", "modify_delay_ms", "max_delay_ms"]
        static let container = ["id", "path", "download", "extended_attributes", "ignore_permissions", "history", "history_max_age_days",
                                "history_max_disk_percent", "ignore", "ignore_defaults", "mode", "hold_deletions_over"]
        static let kvstore = ["id"]
        static let peerLimit = ["device", "max_send_kib_per_second", "max_receive_kib_per_second"]
        static let kvstoreLimits = ["max_store_bytes", "max_keys", "max_key_bytes", "max_value_bytes"]
        static let ui = ["enabled", "listen"]
    }

    /// The layer a config file gives; `file` is only used in messages.
    init(fileText text: String, file: String, paths: DefaultPaths) throws(ConfigError) {
        try TOMLPrecheck.check(text, file: file)
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let line = error.source.begin.line
            if let bare = Self.unquotedText(onLine: line, of: text) {
                throw ConfigError(.syntax, "\(bare.key)'s value \(bare.value) needs quotes, as TOML text does: write \(bare.key) = \"\(bare.value)\"",
                                  file: file, line: line)
            }
            throw ConfigError(.syntax, "\(error.description); fix the TOML syntax", file: file, line: line)
        } catch {
            throw ConfigError(.syntax, "\(error); fix the TOML syntax", file: file)
        }
        let top = TOMLReader(table: root, file: file, locator: TOMLLineLocator(text), prefix: "", section: "the top level")
        try top.rejectUnknownKeys(allowed: Keys.top)

        self.init()
        if let agent = try top.table("agent") { try readAgent(agent, paths: paths) }
        if let sync = try top.table("sync") { try readSync(sync) }
        if let limits = try top.table("kvstore_limits") { try readLimits(limits) }
        try readUI(top)
        if let tables = try top.tables("container"), !tables.isEmpty {
            var result: [Container] = []
            for table in tables { result.append(try Self.container(table, paths: paths)) }
            containers = result
        }
        if let tables = try top.tables("kvstore") {
            var result: [Store] = []
            for table in tables {
                try table.rejectUnknownKeys(allowed: Keys.kvstore)
                guard let id = try table.checked("id", try table.string("id"), ValueRules.containerID) else {
                    throw table.origin(of: "id").error(.missingKey, "\(table.section) has no id; add id = \"TEAMID.com.example.app\"")
                }
                result.append(Store(id: id.rawValue, origin: table.origin(of: "id")))
            }
            kvstores = result
        }
        if let tables = try top.tables("peer_limit") {
            var result: [PeerLimit] = []
            var seen: [DeviceID: ConfigOrigin] = [:]
            for table in tables {
                let limit = try Self.peerLimit(table)
                if let first = seen[limit.device] {
                    throw table.origin(of: "device").error(
                        .invalidValue, "peer \(limit.device) has two [[peer_limit]] tables (also at \(first.label)); remove one")
                }
                seen[limit.device] = table.origin(of: "device")
                result.append(limit)
            }
            peerLimits = result
        }
    }

    private static func peerLimit(_ table: TOMLReader) throws(ConfigError) -> PeerLimit {
        try table.rejectUnknownKeys(allowed: Keys.peerLimit)
        guard let device = try table.checked("device", try table.string("device"), ValueRules.deviceID) else {
            throw table.origin(of: "device").error(.missingKey, "\(table.section) has no device; add device = \"<ID from ubiq devices>\"")
        }
        var limit = PeerLimit(device: device)
        for (key, target) in [("max_send_kib_per_second", \PeerLimit.maxSendKiBPerSecond), ("max_receive_kib_per_second", \PeerLimit.maxReceiveKiBPerSecond)] {
            limit[keyPath: target] = try table.checked(key, try table.int(key)) { value throws(ConfigError) in
                try ValueRules.limit(value, name: key, ceiling: AgentConfiguration.maxRateKiB)
            }
        }
        guard limit.maxSendKiBPerSecond != nil || limit.maxReceiveKiBPerSecond != nil else {
            throw table.origin(of: "device").error(
                .missingKey, "\(table.section) sets no limit; add max_send_kib_per_second or max_receive_kib_per_second")
        }
        return limit
    }

    /// `key = word` on line `line` (1-based) of `text`, where the word is text without its
    /// quotes (`log_level = info`): toml++ reports that as a number it could not parse.
    static func unquotedText(onLine line: Int, of text: String) -> (key: String, value: String)? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count else { return nil }
        var content = Substring(lines[line - 1])
        if let hash = content.firstIndex(of: "#") { content = content[..<hash] }
        let parts = content.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let key = parts[0].trimmingCharacters(in: .whitespaces)
        let value = parts[1].trimmingCharacters(in: .whitespaces)
        let word = value.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "_-./:~".unicodeScalars.contains($0) }
        guard !key.isEmpty, let first = value.unicodeScalars.first, CharacterSet.letters.contains(first) || "/~".unicodeScalars.contains(first), word,
              !["true", "false", "inf", "nan"].contains(value) else { return nil }
        return (key, value)
    }

    private mutating func readAgent(_ agent: TOMLReader, paths: DefaultPaths) throws(ConfigError) {
        try agent.rejectUnknownKeys(allowed: Keys.agent)
        state = try agent.checked("state", try agent.string("state")) { raw throws(ConfigError) in
            try PathRules.absolute(raw, paths: paths, what: "state directory")
        }
        socket = try agent.checked("socket", try agent.string("socket")) { raw throws(ConfigError) in
            try PathRules.absolute(raw, paths: paths, what: "socket")
        }
        deviceName = try agent.checked("device_name", try agent.string("device_name"), ValueRules.deviceName)
        logLevel = try agent.checked("log_level", try agent.string("log_level"), ValueRules.logLevel)
        discovery = try agent.bool("discovery")
        joinPort = try agent.checked("join_port", try agent.int("join_port"), ValueRules.joinPort)
        for (key, target) in [("max_send_kib_per_second", \ConfigLayer.maxSendKiB), ("max_receive_kib_per_second", \ConfigLayer.maxReceiveKiB)] {
            self[keyPath: target] = try agent.checked(key, try agent.int(key)) { value throws(ConfigError) in
                try ValueRules.limit(value, name: key, ceiling: AgentConfiguration.maxRateKiB)
            }
        }
        listen = try agent.checked("listen", try agent.strings("listen")) { list throws(ConfigError) in
            var result: [HostPort] = []
            for raw in list { result.append(try HostPort(raw, allowPortZero: true)) }
            return result
        }
        peers = try agent.checked("peers", try agent.strings("peers")) { list throws(ConfigError) in
            var result: [HostPort] = []
            for raw in list { result.append(try HostPort(raw)) }
            return result
        }
    }

    /// `ui = false` (or `true`), or a `[ui]` table with `enabled` and `listen`.
    private mutating func readUI(_ top: TOMLReader) throws(ConfigError) {
        if top.table["ui"]?.bool != nil {
            uiEnabled = try top.bool("ui")
            return
        }
        guard let ui = try top.table("ui") else { return }
        try ui.rejectUnknownKeys(allowed: Keys.ui)
        uiEnabled = try ui.bool("enabled")
        uiListen = try ui.checked("listen", try ui.string("listen")) { raw throws(ConfigError) in try HostPort(raw, allowPortZero: true) }
    }

    private mutating func readSync(_ sync: TOMLReader) throws(ConfigError) {
        try sync.rejectUnknownKeys(allowed: Keys.sync)
        packageExtensions = try sync.checked("package_extensions", try sync.strings("package_extensions")) { list throws(ConfigError) in
            var result: [String] = []
            for raw in list {
                let ext = try ValueRules.packageExtension(raw)
                if !result.contains(ext) { result.append(ext) }
            }
            return result
        }
        closeDelayMs = try sync.checked("close_delay_ms", try sync.int("close_delay_ms")) { value throws(ConfigError) in
            try ValueRules.milliseconds(value, name: "close_delay_ms")
        }
        modifyDelayMs = try sync.checked("modify_delay_ms", try sync.int("modify_delay_ms")) { value throws(ConfigError) in
            try ValueRules.milliseconds(value, name: "modify_delay_ms")
        }
        maxDelayMs = try sync.checked("max_delay_ms", try sync.int("max_delay_ms")) { value throws(ConfigError) in
            try ValueRules.milliseconds(value, name: "max_delay_ms")
        }
        if modifyDelayMs != nil || maxDelayMs != nil || closeDelayMs != nil {
            delayOrigin = sync.origin(of: maxDelayMs != nil ? "max_delay_ms" : "modify_delay_ms")
        }
    }

    private mutating func readLimits(_ limits: TOMLReader) throws(ConfigError) {
        try limits.rejectUnknownKeys(allowed: Keys.kvstoreLimits)
        func limit(_ key: String, ceiling: Int) throws(ConfigError) -> Int? {
            try limits.checked(key, try limits.int(key)) { value throws(ConfigError) in
                try ValueRules.limit(value, name: key, ceiling: ceiling)
            }
        }
        let ceiling = KeyValueLimits.ceiling
        maxStoreBytes = try limit("max_store_bytes", ceiling: ceiling.maxStoreBytes)
        maxKeys = try limit("max_keys", ceiling: ceiling.maxKeys)
        maxKeyBytes = try limit("max_key_bytes", ceiling: ceiling.maxKeyBytes)
        maxValueBytes = try limit("max_value_bytes", ceiling: ceiling.maxValueBytes)
    }

    private static func container(_ table: TOMLReader, paths: DefaultPaths) throws(ConfigError) -> Container {
        try table.rejectUnknownKeys(allowed: Keys.container)
        guard let id = try table.checked("id", try table.string("id"), ValueRules.containerID) else {
            throw table.origin(of: "id").error(.missingKey, "\(table.section) has no id; add id = \"TEAMID.com.example.app\"")
        }
        let path = try table.checked("path", try table.string("path")) { raw throws(ConfigError) in
            try PathRules.absolute(raw, paths: paths, what: "folder of container \(id)")
        } ?? PathRules.normalised(paths.containerFolder(id))
        let download = try table.checked("download", try table.string("download"), ValueRules.download) ?? .all
        let defaults = HistorySettings()
        let history = HistorySettings(
            enabled: try table.bool("history") ?? defaults.enabled,
            maximumAgeDays: try table.checked("history_max_age_days", try table.int("history_max_age_days")) { value throws(ConfigError) in
                try ValueRules.limit(value, name: "history_max_age_days", ceiling: 100 * 365)
            } ?? defaults.maximumAgeDays,
            maximumDiskPercent: try table.checked("history_max_disk_percent", try table.int("history_max_disk_percent")) { value throws(ConfigError) in
                try ValueRules.limit(value, name: "history_max_disk_percent", ceiling: 100)
            } ?? defaults.maximumDiskPercent)
        let ignore = try table.checked("ignore", try table.strings("ignore")) { patterns throws(ConfigError) in
            try ValueRules.ignorePatterns(patterns)
        } ?? []
        var settings = ContainerSettings(id: id, path: path, download: download,
                                         extendedAttributes: try table.bool("extended_attributes") ?? true,
                                         ignorePermissions: try table.bool("ignore_permissions") ?? false, history: history,
                                         ignore: ignore, ignoreDefaults: try table.bool("ignore_defaults") ?? true)
        settings.mode = try table.checked("mode", try table.string("mode")) { raw throws(ConfigError) in
            guard let mode = FolderMode(rawValue: raw) else {
                throw ConfigError(.invalidValue, "mode is '\(raw)'; it must be one of \(FolderMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return mode
        } ?? .sendReceive
        settings.holdDeletionsOver = try table.checked("hold_deletions_over", try table.int("hold_deletions_over")) { value throws(ConfigError) in
            guard value >= 0 else {
                throw ConfigError(.invalidValue, "hold_deletions_over is \(value); it must be 0 (never hold) or a number of files")
            }
            return value
        } ?? 100
        return Container(settings: settings, origin: table.origin(of: "id"))
    }
}
