import ArgumentParser
import Logging
import UbiqDiscovery

/// Finds, over mDNS, the member device whose open invitation matches a join code: its
/// announcement carries a hint of the code (`join=PORT:HINT`), so no other member is tried.
enum InviterSearch {
    static let timeout: Duration = .seconds(15)

    /// The member's addresses and join port.
    static func find(hint: String) async throws -> (hosts: [String], port: Int) {
        var logger = Logger(label: "ubiq.join")
        logger.logLevel = .warning
        let browser: ServiceBrowser
        do { browser = try await ServiceBrowser.start(logger: logger) } catch {
            throw ValidationError("mDNS is not available here (\(error.reason)); name the inviting device with --peer HOST:PORT as `ubiq device invite` printed it")
        }
        let found = await withTaskGroup(of: (hosts: [String], port: Int)?.self) { group in
            group.addTask {
                for await event in browser.events {
                    switch event {
                    case .found(let peer), .changed(let peer):
                        if let invitation = peer.invitation, invitation.hint == hint, !peer.addresses.isEmpty {
                            return (peer.addresses, Int(invitation.port))
                        }
                    case .lost, .stopped:
                        continue
                    }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        await browser.close()
        guard let found else {
            throw ValidationError("no device on the network announced this code's invitation within \(timeout); check the code, or name the device with --peer HOST:PORT")
        }
        return found
    }
}
