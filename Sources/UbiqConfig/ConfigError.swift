/// Why the agent's configuration could not be built, with where the bad input came from and
/// what to change. Tests and callers compare `code`; `reason` is for people.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// `--config FILE` names a file that does not exist.
        case configFileNotFound
        /// The config file exists but could not be read as UTF-8 text.
        case unreadableConfigFile
        /// The config file is not valid TOML.
        case syntax
        /// A key that ubiqd does not know, usually a typo.
        case unknownKey
        /// A key holds a value of the wrong TOML type.
        case wrongType
        /// A required key is absent (e.g. `id` of a `[[container]]`).
        case missingKey
        /// A value has the right type but is out of range or malformed.
        case invalidValue
        /// Not `host:port` or `[v6]:port`, or the port is out of range.
        case invalidHostPort
        /// Not a container or key-value store identifier.
        case invalidContainerID
        /// A path is not absolute (after `~/` expansion) or is malformed.
        case invalidPath
        /// The same container or key-value store identifier is listed twice.
        case duplicateContainer
        /// Two containers share a folder or one lies inside the other, or a container
        /// overlaps the state directory.
        case overlappingPaths
    }

    public let code: Code
    public let reason: String
    /// The config file the error is in, when it came from the file.
    public let file: String?
    /// The 1-based line in `file`, when known.
    public let line: Int?

    public init(_ code: Code, _ reason: String, file: String? = nil, line: Int? = nil) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    public var description: String {
        switch (file, line) {
        case let (file?, line?): "\(file):\(line): \(reason)"
        case let (file?, nil): "\(file): \(reason)"
        default: reason
        }
    }

    func located(file: String?, line: Int?) -> ConfigError {
        ConfigError(code, reason, file: self.file ?? file, line: self.line ?? line)
    }
}
