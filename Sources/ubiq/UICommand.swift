import ArgumentParser
import Foundation
import UbiqClient

/// `ubiq ui`: the address of the agent's web page with its token, opened in the desktop's
/// browser where one runs.
struct UICommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui", abstract: "Print the address of the agent's web page, and open it where a desktop runs.")

    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Only print the address.") var noOpen = false
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let address = try await agent.webPageAddress()
        if output.json { return Terminal.printJSON(try JSONValue(encoding: address)) }
        print(address.url)
        guard !noOpen, Self.desktopRuns(ProcessInfo.processInfo.environment) else { return }
        let opener = Process()
        opener.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        opener.arguments = ["xdg-open", address.url]
        opener.standardOutput = FileHandle.nullDevice
        opener.standardError = FileHandle.nullDevice
        do { try opener.run() } catch {
            FileHandle.standardError.write(Data("xdg-open could not be run (\(error)); open the address above in a browser\n".utf8))
        }
    }

    static func desktopRuns(_ environment: [String: String]) -> Bool {
        !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    }
}
