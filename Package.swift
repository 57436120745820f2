// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
]
let log: Target.Dependency = .product(name: "Logging", package: "swift-log")

let package = Package(
    name: "ubiq",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ubiqd", targets: ["ubiqd"]),
        .executable(name: "ubiq", targets: ["ubiq"]),
        .library(name: "UbiqClient", targets: ["UbiqClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // Pure values and rules: no I/O.
        .target(name: "UbiqModel", swiftSettings: swiftSettings),
        .target(name: "UbiqChunking", dependencies: [
            "UbiqModel", .product(name: "Crypto", package: "swift-crypto"),
        ], swiftSettings: swiftSettings),
        .target(name: "UbiqConfig", dependencies: [
            "UbiqModel", .product(name: "TOMLKit", package: "TOMLKit"),
        ], swiftSettings: swiftSettings),
        .target(name: "UbiqIdentity", dependencies: [
            "UbiqModel",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
        ], swiftSettings: swiftSettings),
        .target(name: "UbiqIndex", dependencies: [
            "UbiqModel", .product(name: "GRDB", package: "GRDB.swift"), log,
        ], swiftSettings: swiftSettings),
        .target(name: "UbiqFileSystem", dependencies: [
            "UbiqModel", "UbiqChunking", log,
        ], swiftSettings: swiftSettings),
        .target(name: "UbiqWire", dependencies: [
            "UbiqModel", "UbiqChunking",
            .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            .product(name: "NIOCore", package: "swift-nio"),
        ], swiftSettings: swiftSettings),
        .target(name: "UbiqTransport", dependencies: [
            "UbiqModel", "UbiqWire", "UbiqIdentity", log,
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOTLS", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "X509", package: "swift-certificates"),
        ] + nio, swiftSettings: swiftSettings),
        .target(name: "UbiqSync", dependencies: [
            "UbiqModel", "UbiqChunking", "UbiqIndex", "UbiqWire", log,
        ], swiftSettings: swiftSettings),
        .target(name: "UbiqControlAPI", dependencies: ["UbiqModel", .product(name: "NIOCore", package: "swift-nio")], swiftSettings: swiftSettings),
        .target(name: "UbiqControl", dependencies: ["UbiqControlAPI", log] + nio, swiftSettings: swiftSettings),
        .target(name: "UbiqClient", dependencies: ["UbiqControlAPI"] + nio, swiftSettings: swiftSettings),
        // The agent's web page (issue 26): who may use it, and the page's server.
        .target(name: "UbiqWeb", dependencies: [
            "UbiqClient", "UbiqControlAPI", log, .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ] + nio, exclude: ["Page"], swiftSettings: swiftSettings),
        .target(name: "UbiqAgent", dependencies: [
            "UbiqModel", "UbiqConfig", "UbiqIdentity", "UbiqIndex", "UbiqFileSystem", "UbiqWire",
            "UbiqTransport", "UbiqDiscovery", "UbiqSync", "UbiqControlAPI", "UbiqControl", "UbiqWeb", log,
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], swiftSettings: swiftSettings),
        .executableTarget(name: "ubiqd", dependencies: [
            "UbiqAgent", "UbiqConfig", log,
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: swiftSettings),
        .executableTarget(name: "ubiq", dependencies: [
            "UbiqClient", "UbiqControlAPI", "UbiqIdentity", "UbiqConfig", "UbiqTransport", "UbiqDiscovery", log,
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: swiftSettings),
        // An example application: a to-do list over a record store (Examples/TodoList/README.md).
        .executableTarget(name: "ubiq-todo", dependencies: [
            "UbiqClient", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Examples/TodoList", exclude: ["README.md"], swiftSettings: swiftSettings),
        // mDNS through avahi's dns_sd compatibility library.
        .systemLibrary(name: "CDNSSD", providers: [.apt(["libavahi-compat-libdnssd-dev"])]),
        .target(name: "UbiqDiscovery", dependencies: ["CDNSSD", "UbiqModel", log], swiftSettings: swiftSettings),
        // Fuzzing (docs/reliability.md, "Fuzzing"): what each fuzzer feeds its input to, and
        // one executable that replays a corpus or, built by scripts/fuzz.sh, runs libFuzzer.
        .target(name: "UbiqFuzz", dependencies: [
            "UbiqModel", "UbiqChunking", "UbiqWire", "UbiqControlAPI", "UbiqConfig", "UbiqIdentity", "UbiqDiscovery", "UbiqTransport", "CFuzzerDriver",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        ], swiftSettings: swiftSettings),
        .target(name: "CFuzzerDriver"),
        // The benchmark's hostile peer for the status-latency figure under an index flood.
        .executableTarget(name: "ubiq-bench-flood", dependencies: ["UbiqIdentity", "UbiqTransport", "UbiqWire", "UbiqModel", "UbiqTestSupport", log],
                          path: "bench/flood", swiftSettings: swiftSettings),
        // The bandwidth-limit benchmark on a LAN of network namespaces.
        .executableTarget(name: "ubiq-bench-lan-limit", dependencies: ["UbiqTestSupport"], path: "bench/lan-limit",
                          swiftSettings: swiftSettings),
        // The swarm benchmark (issue 25): one file to 1, 3 and 7 receivers on a shaped namespace LAN, ubiq beside Syncthing.
        .executableTarget(name: "ubiq-bench-swarm", dependencies: [
            "UbiqTestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "bench/swarm", swiftSettings: swiftSettings),
        .executableTarget(name: "ubiq-fuzz", dependencies: ["UbiqFuzz"], swiftSettings: swiftSettings),
        .executableTarget(name: "ubiq-sim", dependencies: [
            "UbiqSimulation", .product(name: "ArgumentParser", package: "swift-argument-parser"), log,
        ], swiftSettings: swiftSettings),
        // The engine's deterministic simulator: several devices in one process over an
        // in-memory disk, a simulated network and clock, driven by one seeded scheduler.
        .target(name: "UbiqSimulation", dependencies: ["UbiqSync", "UbiqIndex", "UbiqModel", "UbiqChunking", "UbiqFileSystem", "UbiqWire", "UbiqTestSupport", log],
                swiftSettings: swiftSettings),
        .target(name: "UbiqTestSupport", dependencies: ["UbiqModel", "UbiqClient", "UbiqControlAPI", "UbiqChunking", "UbiqWire", "UbiqFileSystem"] + nio, swiftSettings: swiftSettings),

        .testTarget(name: "UbiqModelTests", dependencies: ["UbiqModel", "UbiqTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqConfigTests", dependencies: ["UbiqConfig"], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqChunkingTests", dependencies: ["UbiqChunking", "UbiqTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqIndexTests", dependencies: ["UbiqIndex", "UbiqTestSupport", .product(name: "GRDB", package: "GRDB.swift")], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqFileSystemTests", dependencies: ["UbiqFileSystem", "UbiqTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqWireTests", dependencies: [
            "UbiqWire", "UbiqModel", "UbiqChunking", .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        ], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqSimulationTests", dependencies: ["UbiqSimulation", "UbiqSync", "UbiqIndex", "UbiqModel", "UbiqTestSupport", log], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqSyncTests", dependencies: ["UbiqSync", "UbiqIndex", "UbiqModel", "UbiqWire", "UbiqTestSupport", "UbiqFileSystem", "UbiqAgent", "UbiqConfig", log],
                    swiftSettings: swiftSettings),
        .testTarget(name: "UbiqWebTests", dependencies: ["UbiqWeb", "UbiqTestSupport", log], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqIdentityTests", dependencies: ["UbiqIdentity", .product(name: "X509", package: "swift-certificates"), .product(name: "Crypto", package: "swift-crypto")], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqTransportTests", dependencies: [
            "UbiqTransport", "UbiqIdentity", "UbiqTestSupport", "UbiqModel", "UbiqWire", log,
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ] + nio, swiftSettings: swiftSettings),
        .testTarget(name: "UbiqControlTests", dependencies: [
            "UbiqControl", "UbiqClient", "UbiqTestSupport", "UbiqControlAPI", "UbiqModel", log,
        ] + nio, swiftSettings: swiftSettings),
        .testTarget(name: "UbiqDiscoveryTests", dependencies: ["UbiqDiscovery", "UbiqModel", "UbiqTestSupport", log], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqTestSupportTests", dependencies: ["UbiqTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqFuzzTests", dependencies: ["UbiqFuzz"], swiftSettings: swiftSettings),
        .testTarget(name: "UbiqAgentTests", dependencies: [
            "UbiqTestSupport", "UbiqControlAPI", "UbiqClient", "UbiqIdentity", "UbiqTransport", "UbiqWire", "UbiqModel", "UbiqChunking", "UbiqFileSystem",
        ], swiftSettings: swiftSettings),
    ]
)
