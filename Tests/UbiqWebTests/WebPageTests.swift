import Foundation
import Logging
import Testing
import UbiqTestSupport
@testable import UbiqWeb

/// The page as a browser gets it, from a server in front of a real agent: the page with its
/// CSRF token, and calls that reach the agent through its socket, only those the page uses.
@Suite(.timeLimit(.minutes(2))) struct WebPageTests {
    let token = WebToken.make()
    let csrf = WebToken.make()

    /// Runs a real agent and the page's server in front of it, for `body`.
    func withPage(_ body: (AgentProcess, WebServer) async throws -> Void) async throws {
        let directory = try TempDirectory(prefix: "ubiq-web")
        let agent = try AgentProcess(name: "alpha", in: directory)
        try await agent.createAccount()
        try await agent.startAndWait()
        defer { agent.stop() }
        let page = WebPage(bridge: WebBridge(socketPath: agent.socket), csrfToken: csrf)
        let server = try await WebServer(host: "127.0.0.1", port: 0, token: token, csrfToken: csrf,
                                         logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }) { await page.respond(to: $0) }
        let running = Task { try await server.run() }
        defer { running.cancel() }
        try await body(agent, server)
    }

    @Test func theEmbeddedPageIsTheOneInThePageFolder() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/UbiqWeb/Page").standardizedFileURL
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == PageAssets.files.keys.sorted(), "run scripts/embed-page.py")
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let same = PageAssets.files[name]?.text == text.trimmingCharacters(in: .newlines)
            #expect(same, "\(name) changed: run scripts/embed-page.py")
        }
    }

    @Test func callsReachTheAgentThroughItsSocket() async throws {
        try await withPage { agent, server in
            let host = "127.0.0.1:\(server.port)"

            let index = try await rawHTTP(port: server.port, "GET / HTTP/1.1\r\nHost: \(host)\r\nCookie: ubiq_ui=\(token)")
            #expect(index.status == 200)
            #expect(index.body.contains(#"<meta name="ubiq-csrf" content="\#(csrf)">"#))
            #expect(index.head.contains("Content-Security-Policy: default-src 'self'"))
            #expect(try await rawHTTP(port: server.port, "GET /app.js HTTP/1.1\r\nHost: \(host)\r\nCookie: ubiq_ui=\(token)").status == 200)
            #expect(try await rawHTTP(port: server.port, "GET /../state HTTP/1.1\r\nHost: \(host)\r\nCookie: ubiq_ui=\(token)").status == 404)

            func post(_ body: String) async throws -> (status: Int, json: [String: Any]) {
                let answer = try await rawHTTP(port: server.port, """
                    POST /api/rpc HTTP/1.1\r\nHost: \(host)\r\nCookie: ubiq_ui=\(token)\r\nOrigin: http://\(host)\r\n\
                    X-Ubiq-CSRF: \(csrf)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)
                    """, body: body)
                let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any] ?? [:]
                return (answer.status, json)
            }
            let status = try await post(#"{"method":"agent.status"}"#)
            #expect(status.status == 200)
            let device = (status.json["result"] as? [String: Any])?["device"] as? [String: Any]
            #expect(device?["name"] as? String == "alpha")

            // The agent's refusal comes back as it is.
            let refused = try await post(#"{"method":"versions.list","params":{"container":"no.such.container","path":"Documents/x"}}"#)
            #expect(refused.status == 200)
            #expect(((refused.json["error"] as? [String: Any])?["code"] as? Int) == -32003)

            // Methods the page does not use, and bodies that are no call, go nowhere.
            #expect(try await post(#"{"method":"account.leave"}"#).status == 400)
            #expect(try await post(#"{"params":{}}"#).status == 400)
            #expect(try await post("not json").status == 400)
            #expect(try await agent.status().identityToken != nil)
        }
    }

    @Test func eventsFollowTheAgentAndEndWithIt() async throws {
        try await withPage { agent, server in
            let events = try StreamingHTTP(port: server.port, "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nCookie: ubiq_ui=\(token)")
            try await waitUntil("the event stream to open") { events.text.contains("retry: 1000") }
            #expect(events.text.hasPrefix("HTTP/1.1 200"))
            #expect(events.text.contains("Content-Type: text/event-stream"))
            try agent.write("Documents/news.txt", "hello")
            try await waitUntil("an event for the new file") {
                events.text.contains("event: events.item") && events.text.contains("Documents/news.txt")
            }
            agent.stop()
            try await waitUntil("the stream to end with the agent") { events.ended }
        }
    }
}
