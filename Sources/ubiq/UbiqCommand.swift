import ArgumentParser
import UbiqControlAPI

/// The `ubiq` command line: talks to the local agent over its control socket.
@main
struct UbiqCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ubiq",
        abstract: "Talk to the local ubiq agent.",
        version: "ubiq \(UbiqRelease.version)",
        subcommands: [
            StatusCommand.self, PeersCommand.self, DevicesCommand.self, DeviceCommand.self, ListCommand.self, QueryCommand.self, VersionsCommand.self, ResolveCommand.self,
            HistoryCommand.self, TrashCommand.self, RestoreCommand.self,
            KeyValueCommand.self, RecordCommand.self, WatchCommand.self, DownloadCommand.self, EvictCommand.self, RescanCommand.self, ContainerCommand.self, DeletionsCommand.self,
            PauseCommand.self, ResumeCommand.self, LimitCommand.self, DifferencesCommand.self, OverrideCommand.self, RevertCommand.self,
            AccountCommand.self, UICommand.self,
        ])

    /// Accepted before the subcommand (`ubiq --socket S status`); subcommands read it back
    /// through their own `ConnectionOptions`, which also accept it after their name.
    @OptionGroup var connection: ConnectionOptions
}
