import Foundation
import Testing
import UbiqControlAPI
import UbiqTestSupport
import UbiqWeb

/// The page as `ubiqd` serves it: its address from `ubiq ui`, the token kept in the state
/// folder, and every request without the token, from a foreign `Host`, or a write without
/// the CSRF token or from another origin refused, with the agent unharmed.
@Suite(.timeLimit(.minutes(3))) struct ServedPageTests {
    @Test func theAgentServesItsPageAndRefusesWhatIsNotThePage() async throws {
        let directory = try TempDirectory(prefix: "ubiq-web")
        let agent = try AgentProcess(name: "alpha", in: directory)
        agent.webPagePort = 0
        try await agent.createAccount()
        try await agent.startAndWait()
        defer { agent.stop() }

        let printed = try await AgentProcess.cli(["--socket", agent.socket, "ui", "--no-open"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let address = try await agent.webPageAddress()
        #expect(printed == address.url)
        let url = try #require(URLComponents(string: address.url))
        let port = try #require(url.port)
        let token = try #require(url.queryItems?.first { $0.name == "token" }?.value)
        var info = stat()
        #expect(stat(agent.state + "/ui-token", &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try String(contentsOfFile: agent.state + "/ui-token", encoding: .utf8).contains(token))
        let host = "127.0.0.1:\(port)"

        let opened = try await rawHTTP(port: port, "GET /?token=\(token) HTTP/1.1\r\nHost: \(host)")
        #expect(opened.status == 303 && opened.head.contains("Set-Cookie: ubiq_ui=\(token)"))
        let page = try await rawHTTP(port: port, "GET / HTTP/1.1\r\nHost: \(host)\r\nCookie: ubiq_ui=\(token)")
        #expect(page.status == 200)
        let csrf = WebToken.csrf(for: token)
        #expect(page.body.contains(csrf))
        // Before its first answer the page says it is loading, not "No conflicts" beside a card
        // that counts one, nor an empty table of devices.
        #expect(page.body.contains("<div id=\"conflicts\"><p class=\"empty loading\">Loading…</p></div>"))
        #expect(!page.body.contains(">No conflicts<"))
        #expect(page.body.contains("<tr class=\"loading\"><td colspan=\"7\" class=\"muted\">Loading…</td></tr>"))

        func post(_ headers: String) async throws -> Int {
            let body = #"{"method":"sync.pause"}"#
            return try await rawHTTP(port: port, "POST /api/rpc HTTP/1.1\r\nHost: \(host)\r\n\(headers)Content-Length: \(body.utf8.count)",
                                     body: body).status
        }
        #expect(try await rawHTTP(port: port, "GET / HTTP/1.1\r\nHost: \(host)").status == 401)
        #expect(try await rawHTTP(port: port, "GET / HTTP/1.1\r\nHost: \(host)\r\nCookie: ubiq_ui=\(WebToken.make())").status == 401)
        #expect(try await rawHTTP(port: port, "GET / HTTP/1.1\r\nHost: attacker.example:\(port)\r\nCookie: ubiq_ui=\(token)").status == 403)
        #expect(try await post("Cookie: ubiq_ui=\(token)\r\nOrigin: http://\(host)\r\n") == 403)
        #expect(try await post("Cookie: ubiq_ui=\(token)\r\nOrigin: http://attacker.example\r\nX-Ubiq-CSRF: \(csrf)\r\n") == 403)
        #expect(try await post("Origin: http://\(host)\r\nX-Ubiq-CSRF: \(csrf)\r\n") == 401)
        #expect(try await agent.status().paused == false, "a refused write changed nothing")

        #expect(try await post("Cookie: ubiq_ui=\(token)\r\nOrigin: http://\(host)\r\nX-Ubiq-CSRF: \(csrf)\r\n") == 200)
        #expect(try await agent.status().paused == true)

        // A page left open keeps working across a restart: the same token and CSRF token.
        agent.stop()
        try await agent.startAndWait()
        let again = try await agent.webPageAddress()
        let restarted = try #require(URLComponents(string: again.url)?.port)
        let reloaded = try await rawHTTP(port: restarted, "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(restarted)\r\nCookie: ubiq_ui=\(token)")
        #expect(reloaded.status == 200 && reloaded.body.contains(csrf))
    }

    @Test func aPageThatCannotBeServedLeavesTheAgentSyncing() async throws {
        let directory = try TempDirectory(prefix: "ubiq-web")
        let first = try AgentProcess(name: "alpha", in: directory)
        first.webPagePort = 0
        try await first.createAccount()
        try await first.startAndWait()
        defer { first.stop() }
        let taken = try #require(URLComponents(string: try await first.webPageAddress().url)?.port)

        let second = try AgentProcess(name: "beta", in: directory)
        second.webPagePort = taken
        try await second.createAccount()
        try await second.startAndWait()
        defer { second.stop() }
        #expect(try await second.status().device.name == "beta")
        await #expect {
            _ = try await second.webPageAddress()
        } throws: { error in
            (error as? RPCError)?.code == .unavailable && "\(error)".contains("cannot listen on 127.0.0.1:\(taken)")
        }

        let off = try AgentProcess(name: "gamma", in: directory)
        try await off.createAccount()
        try await off.startAndWait()
        defer { off.stop() }
        await #expect {
            _ = try await off.webPageAddress()
        } throws: { error in
            "\(error)".contains("the web page is off")
        }
    }

    /// On a first start too, with no state folder yet, which the agent makes.
    @Test func listeningBeyondLoopbackIsLogged() async throws {
        let directory = try TempDirectory(prefix: "ubiq-web")
        let agent = try AgentProcess(name: "alpha", in: directory)
        agent.webPagePort = 0
        agent.extraArguments = ["--ui-listen", "0.0.0.0:0"]  // the last --ui-listen wins
        #expect(!FileManager.default.fileExists(atPath: agent.state))
        try await agent.startAndWait()
        defer { agent.stop() }
        let address = try await agent.webPageAddress()
        #expect(address.url.hasPrefix("http://127.0.0.1:"))
        try await waitUntil("the warning in the log") { agent.logText().contains("served beyond this machine") }
    }
}
