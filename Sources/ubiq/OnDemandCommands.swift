import ArgumentParser
import Foundation
import UbiqClient
import UbiqControlAPI
import UbiqModel

/// `ubiq download CONTAINER PATH`: fetch a file of an on-demand container, with a progress bar.
struct DownloadCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "download", abstract: "Fetch the content of a file of an on-demand container.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container.", transform: { try ContainerID($0) }) var container: ContainerID
    @Argument(help: "The file's path inside the container.") var path: String
    @Flag(help: "Ask for it and return at once.") var noWait = false
    @Option(help: "Seconds to wait at most.") var timeout: Double = 600
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        let notifications = agent.connection.notifications
        let progress = Task {
            for await notification in notifications where notification.method == ControlNotification.coordinateProgress.rawValue {
                guard !output.json, let notice = try? notification.params?.decode(DownloadProgressNotice.self) else { continue }
                FileHandle.standardError.write(Data(("\r" + ProgressBar.line(path: notice.path, done: notice.done, total: notice.total)).utf8))
            }
        }
        defer { progress.cancel() }
        let params = try JSONValue(encoding: ItemDownloadParams(container: container, path: path, wait: !noWait, timeout: timeout))
        let result = try await agent.connection.call(ControlMethod.itemStartDownloading.rawValue, params: params)
        if output.json { return Terminal.printJSON(result) }
        let done = result["downloaded"]?.boolValue == true
        FileHandle.standardError.write(Data((done ? "\rdownloaded \(path)\n" : noWait ? "asked for \(path)\n" : "\rnot downloaded in time: \(path)\n").utf8))
        if !done && !noWait { throw ExitCode.failure }
    }
}

/// `ubiq evict CONTAINER PATH`: drop a file's local content, keep its metadata.
struct EvictCommand: AgentCommand {
    static let configuration = CommandConfiguration(
        commandName: "evict", abstract: "Drop a file's local content and keep its metadata (on-demand containers).",
        discussion: "Refused while no other device holds this version of the file.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The container.", transform: { try ContainerID($0) }) var container: ContainerID
    @Argument(help: "The file's path inside the container.") var path: String

    func run(with agent: UbiqAgentClient) async throws {
        _ = try await agent.connection.call(ControlMethod.itemEvict.rawValue,
                                            params: try JSONValue(encoding: ItemPathParams(container: container, path: path)))
    }
}
