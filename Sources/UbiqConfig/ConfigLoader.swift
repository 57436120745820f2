import Foundation
import UbiqModel

/// Builds the agent's configuration from defaults, the config file and the flags, in that
/// order of precedence (DESIGN.md §6). Environment variables come only from the caller;
/// the only other outside state read is the file system and, for the default device
/// name, the host name.
public enum ConfigLoader {
    /// Reads `overrides.config` if given (it must exist), else the default config file if
    /// there is one, then applies the flags and checks everything.
    ///
    /// - Parameters:
    ///   - environment: `HOME` and the `XDG_*` variables come from here, not the process.
    ///   - hostName: the default device name.
    public static func load(
        overrides: ConfigOverrides,
        environment: [String: String],
        hostName: String = systemHostName()
    ) throws(ConfigError) -> AgentConfiguration {
        let paths = DefaultPaths(environment: environment)
        var layer = ConfigLayer()
        let file = try configFile(overrides: overrides, paths: paths)
        if let file {
            layer = try ConfigLayer(fileText: try read(file), file: file, paths: paths)
        }
        layer = layer.overridden(by: try ConfigLayer(overrides: overrides, paths: paths))
        var config = try layer.resolved(paths: paths, hostName: hostName)
        config.configFile = file
        return config
    }

    /// Checks config text without touching the disk, e.g. for `ubiq` to validate a file.
    public static func load(
        fileText: String,
        file: String,
        overrides: ConfigOverrides = ConfigOverrides(),
        environment: [String: String],
        hostName: String = systemHostName()
    ) throws(ConfigError) -> AgentConfiguration {
        let paths = DefaultPaths(environment: environment)
        let layer = try ConfigLayer(fileText: fileText, file: file, paths: paths)
            .overridden(by: try ConfigLayer(overrides: overrides, paths: paths))
        var config = try layer.resolved(paths: paths, hostName: hostName)
        config.configFile = file
        return config
    }

    /// This machine's host name, the default device name.
    public static func systemHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func configFile(overrides: ConfigOverrides, paths: DefaultPaths) throws(ConfigError) -> String? {
        if let given = overrides.config {
            let path = paths.expandingTilde(given)
            guard FileManager.default.fileExists(atPath: path) else {
                throw ConfigError(.configFileNotFound, "--config: \(path) does not exist; check the path or leave out --config to use \(paths.configFile)")
            }
            return path
        }
        return FileManager.default.fileExists(atPath: paths.configFile) ? paths.configFile : nil
    }

    /// The largest config file read; the example with every option is 5 KiB.
    static let maximumFileSize = 1 << 20

    private static func read(_ file: String) throws(ConfigError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue,
              let handle = FileHandle(forReadingAtPath: file)
        else {
            throw ConfigError(.unreadableConfigFile, "cannot read \(file); check that it is a file you may read")
        }
        defer { try? handle.close() }
        // Reading one byte past the limit tells a file that is too large (or endless, such as
        // /dev/zero) without holding more of it.
        let data: Data
        do { data = try handle.read(upToCount: maximumFileSize + 1) ?? Data() } catch {
            throw ConfigError(.unreadableConfigFile, "cannot read \(file) (\(error)); check that it is a file you may read")
        }
        guard data.count <= maximumFileSize else {
            throw ConfigError(.unreadableConfigFile, "\(file) is larger than \(maximumFileSize >> 20) MiB; a config file is a few KiB", file: file)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(.unreadableConfigFile, "\(file) is not UTF-8 text", file: file)
        }
        return text
    }
}
