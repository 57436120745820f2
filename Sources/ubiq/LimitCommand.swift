import ArgumentParser
import Foundation
import UbiqClient

/// `ubiq limit [--send RATE] [--receive RATE] [--peer DEVICE]`: bandwidth limits, shown and
/// changed at run time.
struct LimitCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "limit", abstract: "Show or change the bandwidth limits (for all peers, or one), without dropping connections.",
        discussion: """
            Examples:
              ubiq limit                                  the limits and the rates now
              ubiq limit --send 2MiB --receive 8MiB       for all peers together
              ubiq limit --peer DEVICE-ID --send 500KiB   for one peer (an ID from `ubiq peers`)
              ubiq limit --send none                      no limit on sending
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The most sent a second: 8MiB, 500KiB, 1G, a number of bytes, or none.", transform: { try RateText.parse($0) })
    var send: RateSetting?
    @Option(help: "The most received a second, as --send.", transform: { try RateText.parse($0) })
    var receive: RateSetting?
    @Option(help: "The limits of this peer alone (a device ID from `ubiq peers`).", transform: { DeviceID($0) })
    var peer: DeviceID?
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let status = send == nil && receive == nil && peer == nil
            ? try await agent.limits()
            : try await agent.setLimits(LimitsSetParams(peer: peer, send: send, receive: receive))
        if output.json { return Terminal.printJSON(try JSONValue(encoding: status)) }
        var table = TextTable(header: ["PEERS", "SEND LIMIT", "SENDING", "RECEIVE LIMIT", "RECEIVING"],
                              alignments: [.left, .right, .right, .right, .right])
        func row(_ name: String, _ send: DirectionLimit, _ receive: DirectionLimit) {
            table.append([name, RateText.format(send.limit), RateText.format(send.rate), RateText.format(receive.limit), RateText.format(receive.rate)])
        }
        row("all", status.send, status.receive)
        for peer in status.peers { row(peer.device.rawValue.shortDeviceID, peer.send, peer.receive) }
        print(table.render())
    }
}

/// Rates as people write them: `8MiB`, `8M`, `500KiB`, `1.5G` (a second), bytes, or `none`.
enum RateText {
    static func parse(_ text: String) throws -> RateSetting {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "/s", with: "")
        if trimmed == "none" { return .unlimited }
        let (kib, mib, gib) = (1024.0, 1024.0 * 1024, 1024.0 * 1024 * 1024)
        let units: [(String, Double)] = [("gib", gib), ("mib", mib), ("kib", kib), ("g", gib), ("m", mib), ("k", kib), ("b", 1), ("", 1)]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            guard let number = Double(trimmed.dropLast(suffix.count)), number.isFinite else { continue }
            let bytes = number * factor
            guard bytes >= 1, bytes <= Double(RateSetting.ceiling) else {
                throw ValidationError("'\(text)' is no limit: give between 1 byte and 100GiB a second, or none")
            }
            return .bytesPerSecond(Int64(bytes))
        }
        throw ValidationError("'\(text)' is no rate: give 8MiB, 500KiB, 1G, a number of bytes, or none")
    }

    static func format(_ bytes: Int64?) -> String {
        bytes.map { ByteCount.format($0) + "/s" } ?? "none"
    }
}
