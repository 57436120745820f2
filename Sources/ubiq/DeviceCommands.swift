import ArgumentParser
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq devices`: the account's devices, as the agents pass them to each other.
struct DevicesCommand: AgentCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List the account's devices.")

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let devices = try await agent.devices()
        if output.json { return Terminal.printJSON(try JSONValue(encoding: devices)) }
        var table = TextTable(header: ["DEVICE", "NAME", "ADDRESSES", "LAST SEEN", "CONTAINERS", "STATE"],
                              alignments: [.left, .left, .left, .left, .right, .left])
        for device in devices {
            let state = device.thisDevice ? "this device"
                : device.removed ? "removed" + (device.removedAt.map { " \(DateDisplay.format($0))" } ?? "")
                : device.connected ? "connected" : "offline"
            let addresses = device.addresses.isEmpty ? device.address ?? "-" : device.addresses.joined(separator: " ")
            table.append([device.id.rawValue, device.name, addresses, device.lastSeen.map(DateDisplay.format) ?? "-",
                          "\(device.containers.count)", state])
        }
        print(table.render())
    }
}

/// `ubiq device remove ID`: a lost or stolen device removed from the account.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Manage the account's devices.", subcommands: [Invite.self, Remove.self])

    struct Invite: AgentCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a one-time code another workstation joins the account with (10 minutes, one join).",
            discussion: """
                Example:
                  ubiq device invite
                then, on the new workstation, the `ubiq account join --code …` line it prints.
                """)

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run(with agent: UbiqAgentClient) async throws {
            let invite = try await agent.inviteDevice()
            if output.json { return Terminal.printJSON(try JSONValue(encoding: invite)) }
            print("Code: \(invite.code)   (valid until \(DateDisplay.format(invite.expiresAt)), for one join; three wrong tries burn it)")
            let peer = "--peer \(invite.host ?? "THIS-HOST"):\(invite.port)"
            if invite.discovery {
                print("On the new workstation, on this network, run:")
                print("  ubiq account join --code \(invite.code)")
                print("or, where mDNS does not reach it:")
                print("  ubiq account join --code \(invite.code) \(peer)")
            } else {
                print("Discovery is off here, so the new workstation needs this device's address. There, run:")
                print("  ubiq account join --code \(invite.code) \(peer)")
            }
            print("then start ubiqd there; it syncs with this device at once.")
        }
    }

    struct Remove: AgentCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a device from the account: every agent refuses its connections from then on.",
            discussion: """
                Examples:
                  ubiq device remove P3ZHVGKD-YGH5HIGH-M2FG6CF2-OMXUJRBO            an ID from `ubiq devices`
                  ubiq device remove P3ZHVGKD-YGH5HIGH-M2FG6CF2-OMXUJRBO --rotate   a lost laptop: new account key too
                """)

        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The device's ID, as `ubiq devices` shows it.") var device: String
        @Flag(help: "Then rotate the account's key, which the removed device held (`ubiq account rotate`).") var rotate = false
        @OptionGroup var output: OutputOptions

        func run(with agent: UbiqAgentClient) async throws {
            let result = try await agent.removeDevice(DeviceID(device))
            let rotation = rotate ? try await agent.rotateAccount() : nil
            if output.json {
                return Terminal.printJSON(.object(["removed": try JSONValue(encoding: result),
                                                   "rotation": try rotation.map { try JSONValue(encoding: $0) } ?? .null]))
            }
            print("Removed \(result.device) from the account\(result.wasConnected ? "; its connection has ended" : "").")
            if let rotation {
                AccountCommand.Rotate.describe(rotation)
            } else {
                print("It still holds the account key: run `ubiq account rotate` to give the account a new one.")
            }
        }
    }
}
