import ArgumentParser

/// The `ubiq` command line: talks to the local agent over its control socket.
@main
struct UbiqCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ubiq", subcommands: [AccountCommand.self])
}
