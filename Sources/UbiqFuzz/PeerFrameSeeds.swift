import Foundation
import UbiqChunking
import UbiqModel
import UbiqIdentity
import UbiqTransport
import UbiqWire

/// Valid peer conversations, encoded by the same code the agent sends with.
enum PeerFrameSeeds {
    static let ourDevice = "OURSOURS-DEVICE"
    static let peerDevice = "PEERPEER-DEVICE"
    static let container = "TEAMID.com.example.notes"
    static let store = "TEAMID.com.example.game"

    static func all() throws -> [(name: String, bytes: [UInt8])] {
        let messages = try messages()
        var seeds = messages.map { (name: $0.name, bytes: stream([$0.message], step: 255)) }
        seeds.append((name: "conversation", bytes: stream(messages.map(\.message), step: 255)))
        seeds.append((name: "conversation-split", bytes: stream(messages.map(\.message), step: 6)))
        return seeds
    }

    /// `step` (the first byte) as `PeerFrames` reads it, then each message as a frame.
    static func stream(_ messages: [Ubiq_Wire_Envelope.OneOf_Message], step: UInt8) -> [UInt8] {
        var bytes = [step]
        for message in messages {
            let payload = Ubiq_Wire_Envelope(message).payload()
            withUnsafeBytes(of: UInt32(payload.count).bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: payload)
        }
        return bytes
    }

    static func messages() throws -> [(name: String, message: Ubiq_Wire_Envelope.OneOf_Message)] {
        let large = try item("Large.bin", chunks: 300)
        let grouped = ItemMapping.fileInfo(large, sequence: 7, grouped: true)
        var groupsRequest = Ubiq_Wire_ChunkListRequest()
        groupsRequest.containerID = container
        groupsRequest.path = large.path.rawValue
        groupsRequest.groups = grouped.chunkGroups.map(\.hash)
        let items = try indexItems().enumerated().map { ItemMapping.fileInfo($1, sequence: Int64($0 + 1), absent: $0 == 1) }
        let kept = [HistoryEntry(id: 2, item: large, name: "", keptAt: 1_795_000_000_000, reason: .replaced, by: DeviceID(ourDevice)),
                    HistoryEntry(id: 1, item: try item("Notes/gone.txt", chunks: 2), name: "", keptAt: 1_794_000_000_000, reason: .deleted,
                                 by: DeviceID(peerDevice))]
        let containerID = try ContainerID(container)
        let listing = HistoryMapping.request(id: 5, container: containerID, path: nil)
        let wanted = HistoryMapping.request(id: 6, container: containerID, path: large.path, versions: [2])
        return [
            ("hello", .hello(.with {
                $0.protocolVersions = Handshake.supportedVersions
                $0.deviceID = peerDevice
                $0.deviceName = "laptop"
                $0.agentVersion = "0.1"
                $0.containers = [.with { $0.containerID = container; $0.indexID = 9; $0.peerIndexID = 1; $0.peerMaxSequence = 3 }]
                $0.keyValueStores = [.with { $0.storeID = store; $0.indexID = 4 }]
            })),
            ("index-update", .indexUpdate(.with {
                $0.containerID = container
                $0.indexID = 9
                $0.lastSequence = 6
                $0.items = items
            })),
            ("index-update-groups", .indexUpdate(.with {
                $0.containerID = container
                $0.indexID = 9
                $0.lastSequence = 7
                $0.items = [grouped]
            })),
            ("chunk-list-request", .chunkListRequest(groupsRequest)),
            ("chunk-list-response", .chunkListResponse(ChunkListMapping.response(to: groupsRequest, chunks: large.chunks))),
            ("chunk-request", .chunkRequest(.with {
                $0.id = 3
                $0.containerID = container
                $0.path = "Notes/today.txt"
                $0.offset = 0
                $0.size = 4
                $0.hash = Data(hash(1).bytes)
                $0.following = [.with { $0.size = 6; $0.hash = Data(hash(2).bytes) }]
            })),
            ("chunk-response", .chunkResponse(.with { $0.id = 3; $0.data = Data("hello, ".utf8) })),
            ("chunk-progress", .chunkProgress(ChunkProgressMapping.messages(SwarmProgress(
                version: SwarmVersion(container: containerID, path: large.path, contentKey: ContentKey.of(large.chunks), size: large.size),
                held: RangeSet([0..<(large.size / 4), (large.size / 2)..<large.size]))).first!)),
            ("chunk-response-zero-runs", .chunkResponse(.with {
                $0.id = 4
                $0.data = Data("data".utf8)
                $0.zeroRuns = [.with { $0.offset = 2; $0.length = 4096 }, .with { $0.offset = 4100; $0.length = 8192 }]
            })),
            ("history-request", .historyRequest(listing)),
            ("history-response", .historyResponse(HistoryMapping.response(to: listing, entries: kept, since: 1_790_000_000_000))),
            ("history-request-versions", .historyRequest(wanted)),
            ("history-response-versions", .historyResponse(HistoryMapping.response(to: wanted, entries: [kept[0]], since: nil))),
            ("device-list", .deviceList(DeviceListMapping.list(
                [DeviceRecord(id: DeviceID(peerDevice), name: "laptop", containers: [try ContainerID("TEAMID.com.example.notes")],
                              describedAt: 1_790_000_000_000, lastSeen: 1_790_000_000_500, address: "192.0.2.4:22100",
                              addresses: ["192.0.2.4:22100", "[2001:db8::4]:22100"])],
                revocations: [Revocation(device: DeviceID("LOSTLOST-DEVICE"), revokedAt: 1_790_000_000_000, by: DeviceID(peerDevice),
                                         signature: Array(repeating: 0x30, count: 70))]))),
            ("account-rotations", .accountRotations(AccountRotationMapping.message([
                AccountRotation(generation: 1, previousAuthority: Data(repeating: 0x30, count: 300), authority: Data(repeating: 0x30, count: 300),
                                crossCertificate: Data(repeating: 0x30, count: 320), authorityKey: Data(repeating: 7, count: 32),
                                members: [Data(repeating: 0x30, count: 400)], rotator: DeviceID(peerDevice), rotatedAt: 1_790_000_000_000),
            ]))),
            ("key-value-update", .keyValueUpdate(.with {
                $0.storeID = store
                $0.indexID = 4
                $0.lastSequence = 2
                $0.entries = keyValueEntries().map(KeyValueMapping.wireEntry)
            })),
            ("key-value-ack", .keyValueAck(.with { $0.storeID = store; $0.indexID = 1; $0.sequence = 2 })),
            ("ping", .ping(Ubiq_Wire_Ping())),
            ("close", .close(.with { $0.code = .protocolError; $0.reason = "bye" })),
        ]
    }

    static func hash(_ seed: Int) -> ChunkHash {
        ChunkHash(bytes: (0..<32).map { UInt8(truncatingIfNeeded: seed &* 31 &+ $0 &* 7) })!
    }

    static func version(_ counter: UInt64) -> VersionVector {
        VersionVector([DeviceID(peerDevice): counter, DeviceID(ourDevice): 1])
    }

    static func item(_ path: String, chunks count: Int) throws -> Item {
        var chunks: [ChunkRef] = []
        var offset: UInt64 = 0
        for index in 0..<count {
            let size = UInt32(1024 + index % 7)
            chunks.append(ChunkRef(offset: offset, size: size, hash: hash(index)))
            offset += UInt64(size)
        }
        return Item(path: try RelativePath(path), kind: .file, size: offset, mtime: 1_795_000_000_000_000_000,
                    chunks: chunks, version: version(2), modifiedBy: DeviceID(peerDevice))
    }

    static func indexItems() throws -> [Item] {
        let author = DeviceID(peerDevice)
        var document = try item("Notes/today.txt", chunks: 2)
        document.permissions = Permissions(mode: 0o750, kind: .file)
        var loser = try item("Notes/today.txt", chunks: 1)
        loser.version = VersionVector([DeviceID(ourDevice): 3])
        loser.modifiedBy = DeviceID(ourDevice)
        document.conflicts = [ConflictVersion(of: loser)]
        return [
            try Item(path: RelativePath("Notes"), kind: .directory, version: version(1), modifiedBy: author),
            document,
            try Item(path: RelativePath("Notes/latest"), kind: .symlink, symlinkTarget: "today.txt", version: version(1), modifiedBy: author),
            try Item(path: RelativePath("Old draft.txt"), kind: .file, deleted: true, version: version(3), modifiedBy: author),
            try item("Photos.pages/Data/1.jpg", chunks: 3),
            try item("Notes/touched.txt", chunks: 1).changedMetadata(by: DeviceID(ourDevice)),
            try package("Report.pages"),
        ]
    }

    /// A file package: a folder, a file in it, a file at the top and a link.
    static func package(_ path: String) throws -> Item {
        let content = try PackageContent(files: [
            (PackageMember(path: try RelativePath("Data"), kind: .directory, mtime: 1), []),
            (PackageMember(path: try RelativePath("Data/1.jpg"), kind: .file, size: 10, mtime: 2), [ChunkRef(offset: 0, size: 10, hash: hash(5))]),
            (PackageMember(path: try RelativePath("Index.xml"), kind: .file, size: 4, mtime: 3), [ChunkRef(offset: 0, size: 4, hash: hash(6))]),
            (PackageMember(path: try RelativePath("Preview"), kind: .symlink, mtime: 4, symlinkTarget: "Data/1.jpg"), []),
        ])
        return Item(path: try RelativePath(path), kind: .package, size: content.size, mtime: 5, chunks: content.chunks,
                    members: content.members, version: version(2), modifiedBy: DeviceID(peerDevice))
    }

    static func keyValueEntries() -> [KeyValueEntry] {
        let values: [(String, PropertyListValue?)] = [
            ("level", .integer(13)),
            ("volume", .double(0.75)),
            ("name", .string("Zoë")),
            ("saved", .date(secondsSince1970: 1_795_000_000.5)),
            ("blob", .data([0, 1, 2, 255])),
            ("done", .bool(true)),
            ("scores", .array([.integer(1), .array([.bool(false)]), .dictionary(["a": .string("b")])])),
            ("settings", .dictionary(["theme": .string("dark"), "size": .integer(-2)])),
            ("removed", nil),
        ]
        return values.enumerated().map { index, pair in
            KeyValueEntry(key: pair.0, value: pair.1, version: version(UInt64(index + 1)),
                          timestamp: HybridTimestamp(wall: 1_795_000_000_000 + Int64(index), logical: 0),
                          modifiedBy: DeviceID(peerDevice))
        }
    }
}
