import Foundation
import Logging
import ServiceLifecycle
import UbiqConfig
import UbiqControlAPI
import UbiqIdentity
import UbiqWeb

/// The agent's web page (`ui.listen`) as a service: the token of `<state>/ui-token`, the
/// CSRF token made from it, and every call made through the agent's own control socket, as the
/// CLI makes them. A page that cannot be served is logged and told to `ui.url`; syncing goes on.
struct WebPageService: Service {
    let listen: HostPort
    let configuration: AgentConfiguration
    let state: WebPageState
    let logger: Logger

    func run() async throws {
        let server: WebServer
        let token: String
        do {
            // On a first start the page may come up before the account's parts make the folder.
            try StateDirectory(path: configuration.stateDirectory).create()
            token = try WebToken.loadOrCreate(at: configuration.stateDirectory + "/ui-token")
            let csrf = WebToken.csrf(for: token)
            let page = WebPage(bridge: WebBridge(socketPath: configuration.socketPath), csrfToken: csrf,
                               pageDirectory: ProcessInfo.processInfo.environment["UBIQ_UI_PAGE_DIR"])
            server = try await WebServer(host: listen.host, port: listen.port, token: token, csrfToken: csrf,
                                         logger: logger) { await page.respond(to: $0) }
        } catch {
            logger.error("the web page is not served; another program (a second agent?) may hold its port: start ubiqd with --ui-listen 127.0.0.1:PORT or --no-ui (ui.listen or ui = false in the config)",
                         metadata: ["listen": "\(listen)", "error": "\(error)"])
            await state.settle(.failed("\(error)"))
            try? await gracefulShutdown()
            return
        }
        let bound = (listen.host.contains(":") ? "[\(listen.host)]" : listen.host) + ":\(server.port)"
        let url = "http://\(Self.browserHost(listen.host)):\(server.port)/?token=\(token)"
        await state.settle(.serving(WebPageAddress(url: url, listen: bound)))
        if Self.isLoopback(listen.host) {
            logger.info("web page served", metadata: ["listen": "\(bound)"])
        } else {
            logger.warning("the web page is served beyond this machine: anyone who reaches this address and has the token can change what syncs; set ui.listen to 127.0.0.1:PORT unless that is meant",
                           metadata: ["listen": "\(bound)"])
        }
        try await server.run()
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Where a browser on this machine reaches a listener on `host`.
    static func browserHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0": "127.0.0.1"
        case "::": "[::1]"
        default: host.contains(":") ? "[\(host)]" : host
        }
    }
}

extension WebPageService: CustomStringConvertible {
    var description: String { "WebPageService" }
}
