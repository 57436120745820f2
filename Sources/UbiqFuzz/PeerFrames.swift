import NIOCore
import NIOEmbedded
import SwiftProtobuf
import UbiqChunking
import UbiqModel
import UbiqTransport
import UbiqWire

extension FuzzTarget {
    /// Bytes from a peer after TLS: the frame decoder, each frame's envelope, and every
    /// mapping the agent applies to what the envelope carries.
    ///
    /// The first byte sets how many bytes each read delivers (one more than its value, or all
    /// at once when it is 255), so frames also arrive split across reads.
    public static let peerFrames = FuzzTarget(
        name: "peer-frames",
        summary: "frame decoder, Envelope, hello, index and key-value entries, chunk lists, histories",
        testOneInput: { data, size in
            PeerFrames.run(UnsafeRawBufferPointer(fuzzInput: data, size))
            return 0
        },
        seeds: { try PeerFrameSeeds.all() })
}

/// The conversation with one peer, as `PeerSession` holds it: messages are checked one by
/// one, and chunk lists from answers fill the index entries that name chunk groups.
enum PeerFrames {
    static let ours: Ubiq_Wire_Hello = .with {
        $0.protocolVersions = Handshake.supportedVersions
        $0.deviceID = PeerFrameSeeds.ourDevice
        $0.containers = [.with { $0.containerID = PeerFrameSeeds.container; $0.indexID = 1 }]
        $0.keyValueStores = [.with { $0.storeID = PeerFrameSeeds.store; $0.indexID = 1 }]
    }

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let first = input.first else { return }
        let stream = input.dropFirst()
        let channel = EmbeddedChannel(handler: FrameDecoder())
        let step = first == 255 ? max(stream.count, 1) : Int(first) + 1
        var conversation = Conversation()
        var offset = stream.startIndex
        do {
            while offset < stream.endIndex {
                let end = min(offset + step, stream.endIndex)
                var buffer = channel.allocator.buffer(capacity: end - offset)
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: stream[offset..<end]))
                try channel.writeInbound(buffer)
                while let frame = try channel.readInbound(as: ByteBuffer.self) {
                    conversation.receive(frame)
                }
                offset = end
            }
            _ = try channel.finish()
        } catch {
            _ = try? channel.finish()
        }
    }

    struct Conversation {
        var agreement: Handshake.Agreement?
        var announced: [AnnouncedItem] = []
        var lists: [ChunkHash: ArraySlice<ChunkRef>] = [:]

        mutating func receive(_ payload: ByteBuffer) {
            guard let envelope = try? Ubiq_Wire_Envelope(payload: payload) else { return }
            switch envelope.message {
            case .hello(let theirs):
                agreement = try? Handshake.agree(ours: PeerFrames.ours, theirs: theirs,
                                                 authenticatedDevice: DeviceID(PeerFrameSeeds.peerDevice))
            case .indexUpdate(let update):
                guard (try? ContainerID(update.containerID)) != nil else { return }
                for info in update.items {
                    guard let entry = try? ItemMapping.announced(info) else { continue }
                    announced.append(entry)
                    if entry.groups.isEmpty { Self.checkRoundTrip(entry.item) }
                    _ = entry.missing(from: lists)
                    _ = entry.resolved(from: lists)
                }
            case .chunkListRequest(let request):
                guard (try? ContainerID(request.containerID)) != nil, let path = try? RelativePath(request.path) else { return }
                let chunks = announced.last { $0.item.path == path }?.item.chunks ?? []
                _ = ChunkListMapping.response(to: request, chunks: chunks)
            case .chunkListResponse(let response):
                lists.merge(ChunkListMapping.lists(response)) { held, _ in held }
                for entry in announced where !entry.groups.isEmpty { _ = entry.resolved(from: lists) }
            case .keyValueUpdate(let update):
                guard (try? KeyValueStoreID(update.storeID)) != nil else { return }
                for wire in update.entries {
                    guard let entry = try? KeyValueMapping.entry(wire) else { continue }
                    Self.checkRoundTrip(entry)
                }
            case .chunkRequest(let request):
                _ = ChunkHash(bytes: Array(request.hash))
                _ = try? RelativePath(request.path)
            case .chunkResponse(let response):
                Self.checkAgainstSwiftProtobuf(envelope, payload: payload)
                if let restored = try? ChunkZeroRuns.restore(response.data, runs: response.zeroRuns, limit: 1 << 20) {
                    precondition(restored.count == response.data.count + response.zeroRuns.reduce(0) { $0 + Int($1.length) })
                }
            case .historyRequest(let request):
                _ = try? HistoryMapping.path(of: request)
                precondition(HistoryMapping.wanted(request).count <= HistoryMapping.maxWithChunks)
            case .historyResponse(let response):
                _ = HistoryMapping.entries(response, withChunks: false)
                for entry in HistoryMapping.entries(response, withChunks: true).entries {
                    let again = HistoryMapping.entries(.with { $0.versions = [HistoryMapping.keptVersion(entry, withChunks: true)] }, withChunks: true)
                    precondition(again.entries == [entry], "a kept version does not survive its own encoding")
                }
            case .accountRotations(let message):
                if let rotations = try? AccountRotationMapping.rotations(message) {
                    precondition((try? AccountRotationMapping.rotations(AccountRotationMapping.message(rotations))) == rotations,
                                 "account rotations do not survive their own encoding")
                }
            case .deviceList(let list):
                let entries = DeviceListMapping.entries(list)
                let again = DeviceListMapping.entries(DeviceListMapping.list(entries.devices, revocations: entries.revocations))
                precondition(again.devices == entries.devices && again.revocations == entries.revocations && again.refused == 0,
                             "an accepted device list does not survive its own encoding")
            case .chunkProgress(let message):
                if let progress = try? ChunkProgressMapping.progress(message) {
                    let again = ChunkProgressMapping.messages(progress).map { try? ChunkProgressMapping.progress($0) }
                    precondition(again.count == 1 && again[0] == progress, "chunk progress does not survive its own encoding")
                }
            case .keyValueAck, .ping, .close, nil:
                break
            }
        }

        /// A chunk response is decoded by hand (`ChunkResponseCoding`); it must be the message
        /// SwiftProtobuf decodes from the same bytes, and encode back to the same frame.
        static func checkAgainstSwiftProtobuf(_ envelope: Ubiq_Wire_Envelope, payload: ByteBuffer) {
            var options = BinaryDecodingOptions()
            options.discardUnknownFields = true
            guard let slow = try? Ubiq_Wire_Envelope(serializedBytes: Array(payload.readableBytesView), options: options),
                  slow == envelope
            else { fatalError("a chunk response decodes differently by hand and by SwiftProtobuf") }
            guard let bytes: [UInt8] = try? slow.serializedBytes(), Array(envelope.frame().frame.readableBytesView.dropFirst(4)) == bytes else {
                fatalError("a chunk response encodes differently by hand and by SwiftProtobuf")
            }
        }

        /// An item the agent accepted must come back the same when it announces it in turn.
        static func checkRoundTrip(_ item: Item) {
            guard let again = try? ItemMapping.item(ItemMapping.fileInfo(item, sequence: 1)) else {
                fatalError("an accepted index entry does not decode after encoding: \(item.path)")
            }
            guard again == item else { fatalError("an index entry changes when announced again: \(item.path)") }
        }

        /// An entry the agent accepted must survive being sent on unchanged: another device
        /// decodes what this one encodes.
        static func checkRoundTrip(_ entry: KeyValueEntry) {
            let wire = KeyValueMapping.wireEntry(entry)
            guard let again = try? KeyValueMapping.entry(wire) else {
                fatalError("an accepted key-value entry does not decode after encoding: \(entry.key)")
            }
            guard KeyValueMapping.wireEntry(again) == wire else {
                fatalError("a key-value entry changes when sent on: \(entry.key)")
            }
        }
    }
}
