import Foundation

/// The page's routes: the page itself with its CSRF token, its script and style, and the
/// calls to the agent. Everything else is 404.
public struct WebPage: Sendable {
    let bridge: WebBridge
    let csrfToken: String
    /// A folder whose files are served instead of the built-in copy (`UBIQ_UI_PAGE_DIR`), so
    /// that the page can be worked on without building the agent again.
    let pageDirectory: String?

    public init(bridge: WebBridge, csrfToken: String, pageDirectory: String? = nil) {
        self.bridge = bridge
        self.csrfToken = csrfToken
        self.pageDirectory = pageDirectory
    }

    public func respond(to request: WebRequest) async -> WebResponse {
        switch (request.method, request.path) {
        case ("POST", "/api/rpc"):
            return await bridge.call(request.body)
        case ("GET", "/api/events"):
            return await bridge.events()
        case ("GET", "/"), ("HEAD", "/"):
            return asset("index.html", replacing: "{{CSRF}}", with: csrfToken)
        case ("GET", let path), ("HEAD", let path):
            let name = String(path.dropFirst())
            guard name != "index.html", file(name) != nil else { return .text(404, "no such page") }
            return asset(name)
        default:
            return .text(405, "the page takes GET, and POST for /api/rpc")
        }
    }

    private func asset(_ name: String, replacing marker: String? = nil, with value: String = "") -> WebResponse {
        guard let (type, text) = file(name) else { return .text(404, "no such page") }
        let body = marker.map { text.replacingOccurrences(of: $0, with: value) } ?? text
        return WebResponse(status: 200, headers: [
            ("Content-Type", type),
            ("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"),
        ], body: Array(body.utf8))
    }

    /// The page's file `name`, a plain name without folders.
    private func file(_ name: String) -> (type: String, text: String)? {
        guard let pageDirectory else { return PageAssets.files[name] }
        guard !name.contains("/"), !name.hasPrefix("."),
              let type = PageAssets.types.first(where: { name.hasSuffix($0.key) })?.value,
              let text = try? String(contentsOfFile: pageDirectory + "/" + name, encoding: .utf8)
        else { return nil }
        return (type, text)
    }
}
