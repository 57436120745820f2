import ArgumentParser
import Foundation
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq watch [CONTAINER]`: every change the agent records, as it happens.
struct WatchCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print changes to containers as the agent records them, until interrupted.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "Only this container (default: every container).", transform: { try ContainerID($0) })
    var container: ContainerID?
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let notifications = agent.connection.notifications
        let _: EventsSubscribeResult = try await agent.connection.call(
            ControlMethod.eventsSubscribe.rawValue, params: EventsSubscribeParams(container: container))
        for await notification in notifications where notification.method == ControlNotification.eventsItem.rawValue {
            guard let params = notification.params else { continue }
            if output.json {
                print(params.serialized())
            } else if let event = try? params.decode(ItemEvent.self) {
                print(Self.describe(event, at: Date()))
            }
            fflush(nil)
        }
    }

    static func describe(_ event: ItemEvent, at date: Date) -> String {
        let time = date.formatted(Date.ISO8601FormatStyle().time(includingFractionalSeconds: false))
        var line = "\(time)  \(event.origin == "remote" ? "peer " : "local")  \(event.change.padding(toLength: 7, withPad: " ", startingAt: 0))  \(event.path)"
        if let to = event.to { line += " -> \(to)" }
        if event.conflicts > 0 { line += "  (\(event.conflicts) conflict\(event.conflicts == 1 ? "" : "s"))" }
        if let error = event.error { line += "  (\(error))" }
        return line
    }
}
