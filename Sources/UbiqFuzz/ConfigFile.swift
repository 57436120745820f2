import UbiqConfig

extension FuzzTarget {
    /// The text of `ubiqd.toml`: TOML parsing (TOMLKit and toml++), every key's checks and
    /// the rules across keys, up to the resolved configuration.
    public static let configFile = FuzzTarget(
        name: "config-file",
        summary: "ubiqd.toml from text to a resolved configuration",
        testOneInput: { data, size in
            ConfigFile.run(UnsafeRawBufferPointer(fuzzInput: data, size))
            return 0
        },
        seeds: { ConfigFileSeeds.all() })
}

enum ConfigFile {
    /// Paths resolve against this home; nothing is read or written there.
    static let environment = ["HOME": "/tmp/ubiq-fuzz-home", "XDG_RUNTIME_DIR": "/tmp/ubiq-fuzz-home/run"]

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let text = String(validating: input, as: UTF8.self) else { return }
        _ = try? ConfigLoader.load(fileText: text, file: "/tmp/ubiq-fuzz-home/.config/ubiq/ubiqd.toml",
                                   environment: environment, hostName: "fuzz-host")
    }
}
