import ArgumentParser
import UbiqClient
import UbiqControlAPI

/// `ubiq status`: this device, its containers and its peers at a glance.
struct StatusCommand: AgentCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the agent's state.")
    /// Paths not synced shown one a line; the rest are counted.
    static let notSyncedLines = 20

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run(with agent: UbiqAgentClient) async throws {
        if output.json {
            return Terminal.printJSON(try await agent.connection.call(ControlMethod.agentStatus.rawValue))
        }
        print(Self.render(try await agent.status()))
    }

    static func render(_ status: AgentStatus) -> String {
        var summary = TextTable(header: ["Device", "\(status.device.name)  \(status.device.id.rawValue)"])
        summary.append(["Account", status.identityToken.map { "identity \($0.prefix(16))…" } ?? "signed out"])
        summary.append(["Agent", "ubiqd \(status.agentVersion)" + (status.listen.isEmpty ? ", not listening" : ", listening on \(status.listen.joined(separator: ", "))")])
        summary.append(["Discovery", status.discovery])
        summary.append(["Transfer", "\(ByteCount.format(status.bytesToFetch)) to fetch, sent \(ByteCount.format(status.bytesSent)), received \(ByteCount.format(status.bytesReceived))"])
        summary.append(["Conflicts", status.conflicts == 0 ? "none" : "\(status.conflicts) unresolved (see ubiq versions)"])
        if status.paused { summary.append(["Paused", "all syncing (ubiq resume resumes it)"]) }
        if let limits = status.limits, limits.send.limit != nil || limits.receive.limit != nil {
            summary.append(["Limits", "send \(RateText.format(limits.send.limit)) (now \(RateText.format(limits.send.rate))), "
                + "receive \(RateText.format(limits.receive.limit)) (now \(RateText.format(limits.receive.rate)))"])
        }
        var sections = [summary.render()]

        if status.containers.isEmpty {
            sections.append("No containers.")
        } else {
            var table = TextTable(
                header: ["CONTAINER", "ITEMS", "SIZE", "TO FETCH", "CONFLICTS", "STATE", "PATH"],
                alignments: [.left, .right, .right, .right, .right, .left, .left])
            var notes: [String] = []
            for container in status.containers {
                let need = container.needItems == 0 ? "-" : "\(container.needItems) (\(ByteCount.format(container.needBytes)))"
                let state = container.state == "unavailable" ? "UNAVAILABLE" : status.paused || container.paused ? "paused" : container.scanning ? "scanning" : !container.failures.isEmpty ? "failing"
                    : container.needItems > 0 ? "syncing" : "idle"
                table.append([container.id.rawValue, "\(container.items)", ByteCount.format(container.bytes), need,
                              "\(container.conflicts)", state, container.path])
                if let reason = container.reason { notes.append("\(container.id.rawValue): not synced: \(reason)") }
                if let held = container.heldDeletions {
                    notes.append("\(container.id.rawValue): \(held.count) deletions held, not sent (ubiq deletions \(container.id.rawValue) lists them; "
                        + "ubiq deletions confirm or restore decides)")
                }
                notes += container.caseConflicts.map { "\(container.id.rawValue): case conflict at \($0)" }
                if container.download == "on-demand" {
                    notes.append("\(container.id.rawValue): on demand, \(container.notDownloaded) file\(container.notDownloaded == 1 ? "" : "s") not downloaded")
                }
                notes += container.transfers.map { ProgressBar.line(path: $0.path, done: $0.done, total: $0.total) }
                notes += container.failures.map { "\(container.id.rawValue): cannot apply \($0.path) yet (will retry): \($0.error)" }
                let notSynced = container.notSynced ?? []
                notes += notSynced.prefix(Self.notSyncedLines).map { "\(container.id.rawValue): \($0.path): \($0.reason)" }
                let more = notSynced.count - min(notSynced.count, Self.notSyncedLines) + (container.notSyncedMore ?? 0)
                if more > 0 { notes.append("\(container.id.rawValue): \(more) more paths not synced (`ubiq status --json` lists up to \(ContainerStatus.notSyncedShown))") }
                notes += (container.ignore?.problems ?? []).map { "\(container.id.rawValue): ignore rules: \($0)" }
                if let problem = container.watcher?.problem { notes.append("\(container.id.rawValue): \(problem)") }
                for store in container.recordStores ?? [] {
                    notes += store.refused.map { "\(container.id.rawValue): record store \(store.name) left out \($0.path): \($0.reason)" }
                }
                if let history = container.history, history.versions > 0 {
                    let cap = history.maxBytes.map { ", at most \(ByteCount.format($0))" } ?? ""
                    notes.append("\(container.id.rawValue): history keeps \(history.versions) version\(history.versions == 1 ? "" : "s") "
                        + "(\(ByteCount.format(history.bytes))) for up to \(history.maxAgeDays) days\(cap); see ubiq history")
                }
            }
            sections.append(([table.render()] + notes).joined(separator: "\n"))
        }
        sections.append(PeersCommand.render(status.peers))
        return sections.joined(separator: "\n\n")
    }
}
