import NIOCore
import Testing
@_spi(Testing) import UbiqIdentity
import UbiqConfig
import UbiqControlAPI
import UbiqDiscovery
@testable import UbiqFuzz
import UbiqWire

/// Seeds are valid inputs, so that fuzzing starts deep inside each parser rather than at
/// its first check.
@Suite struct SeedTests {
    @Test func peerConversationIsAcceptedWhole() throws {
        var conversation = PeerFrames.Conversation()
        let messages = try PeerFrameSeeds.messages()
        for message in messages {
            conversation.receive(ByteBuffer(bytes: Ubiq_Wire_Envelope(message.message).payload()))
        }
        #expect(conversation.agreement?.containers.count == 1)
        #expect(conversation.agreement?.stores.count == 1)
        #expect(conversation.announced.count == 8)
        #expect(conversation.announced.contains { $0.item.kind == .package && $0.item.members.count == 4 })
        let large = try #require(conversation.announced.last)
        #expect(!large.groups.isEmpty)
        #expect(large.resolved(from: conversation.lists)?.chunks.count == 300)
        for case .keyValueUpdate(let update) in messages.map(\.message) {
            for entry in update.entries { _ = try KeyValueMapping.entry(entry) }
        }
    }

    @Test func controlRequestsAreAccepted() throws {
        for seed in ControlLineSeeds.all() where seed.name != "session" {
            let line = seed.bytes.last == 0x0A ? seed.bytes.dropLast() : seed.bytes[...]
            let request = try RPCRequest(line: line)
            _ = try ControlParams.check(method: request.method, params: request.params)
        }
    }

    @Test func configFilesLoad() throws {
        for seed in ConfigFileSeeds.all() {
            _ = try ConfigLoader.load(fileText: String(decoding: seed.bytes, as: UTF8.self), file: seed.name,
                                      environment: ConfigFile.environment, hostName: "host")
        }
    }

    @Test func bundlesImport() throws {
        for seed in try AccountBundleInput.seeds() {
            _ = try Account(bundleText: String(decoding: seed.bytes, as: UTF8.self))
        }
    }

    @Test func changeLogsDecode() throws {
        let seeds = try RecordLogs.seeds()
        _ = try RecordLogCoding.decode(seeds[0].bytes)
        _ = try RecordLogCoding.decode(RecordLogCoding.framed(seeds[1].bytes))
    }

    @Test func txtRecordsDecode() throws {
        for seed in try DiscoveryTXT.seeds() {
            _ = try DiscoveryRecord.decode(txt: seed.bytes, port: 1)
        }
    }
}
