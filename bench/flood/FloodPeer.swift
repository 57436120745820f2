import Foundation
import Logging
import Synchronization
import UbiqIdentity
import UbiqModel
import UbiqTestSupport
import UbiqTransport
import UbiqWire

/// A hostile peer for the benchmark's flood figure: a device of the agent's account (joined
/// from a bundle) that says hello for one container and then sends index updates of 500
/// folders each, every one a newer version than the last, as fast as the agent takes them
/// in, until its standard input closes; it reads and drops whatever the agent sends. It
/// prints how many updates it sent.
///
///     ubiq-bench-flood BUNDLE STATE-DIR PORT CONTAINER
@main
struct FloodPeer {
    /// Set once standard input closes.
    static let stopped = Atomic<Bool>(false)

    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 5, let port = Int(arguments[3]) else {
            FileHandle.standardError.write(Data("usage: ubiq-bench-flood BUNDLE STATE-DIR PORT CONTAINER\n".utf8))
            exit(2)
        }
        let container = try ContainerID(arguments[4])
        let identity = try IdentityStore(state: StateDirectory(path: arguments[2])).join(bundle: arguments[1], deviceName: "flood")
        let transport = try PeerTransport(identity: identity, logger: Logger(label: "flood"))
        let connection = try await transport.connect(host: "127.0.0.1", port: port)
        let indexID: UInt64 = 0xF100D
        var hello = Ubiq_Wire_Hello()
        hello.protocolVersions = [1]
        hello.deviceID = identity.deviceID.rawValue
        hello.deviceName = "flood"
        var offer = Ubiq_Wire_ContainerOffer()
        offer.containerID = container.rawValue
        offer.indexID = indexID
        hello.containers = [offer]
        try await connection.send(Ubiq_Wire_Envelope(.hello(hello)).payload())

        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = try? await connection.frames.reduce(0) { count, _ in count + 1 } }
            group.addTask {
                await Task.detached { _ = FileHandle.standardInput.readDataToEndOfFile() }.value
                Self.stopped.store(true, ordering: .relaxed)
            }
            var sent = 0
            while !Self.stopped.load(ordering: .relaxed) {
                sent += 1
                let update = FloodUpdate.folders(sent, container: container, indexID: indexID, device: identity.deviceID)
                do { try await connection.send(Ubiq_Wire_Envelope(.indexUpdate(update)).payload()) } catch { break }
            }
            print(sent)
            await connection.close()
            group.cancelAll()
        }
    }
}
