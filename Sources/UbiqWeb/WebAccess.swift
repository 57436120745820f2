/// Who may use the agent's web page: the checks every request passes before the page or the
/// agent is reached. Kept pure, so that each rule is shown alone by a test.
///
/// - **Host.** A request whose `Host` is not the listen address, `localhost` or a loopback
///   address, with the page's port, is refused (403): a page elsewhere that makes its own
///   name resolve to 127.0.0.1 (DNS rebinding) still sends its own name.
/// - **Token.** The random token from the state folder, as a cookie the page got by opening
///   the URL `ubiq ui` prints, or as `Authorization: Bearer`; else 401.
/// - **Writes.** Anything but GET and HEAD also needs the page's CSRF token in
///   `X-Ubiq-CSRF` and an `Origin` that is the page's own (403): a form or script on another
///   site can make a browser send the cookie, but can neither read the CSRF token nor forge
///   `Origin`. No CORS header is ever sent.
public struct WebAccess: Sendable {
    /// What to do with a request.
    public enum Decision: Sendable, Equatable {
        case allowed
        /// 401: no token, or the wrong one.
        case unauthorized(String)
        /// 403: a foreign `Host`, or a write without the CSRF token or from another origin.
        case forbidden(String)
    }

    /// What of a request the checks look at.
    public struct Request: Sendable {
        public var method: String
        public var host: String?
        public var origin: String?
        /// The token presented, by cookie or `Authorization` header.
        public var token: String?
        public var csrf: String?

        public init(method: String, host: String?, origin: String? = nil, token: String? = nil, csrf: String? = nil) {
            self.method = method
            self.host = host
            self.origin = origin
            self.token = token
            self.csrf = csrf
        }
    }

    public let token: String
    /// Given to the page inside the page itself, never in a cookie.
    public let csrfToken: String
    private let hosts: Set<String>

    /// `listenHost`: the address the page listens on (`127.0.0.1`, `::1`, or one set with
    /// `ui.listen`); `port`: its port.
    public init(token: String, csrfToken: String, listenHost: String, port: Int) {
        self.token = token
        self.csrfToken = csrfToken
        hosts = Set(["localhost", "127.0.0.1", "[::1]", Self.hostForm(listenHost)].map { "\($0.lowercased()):\(port)" })
    }

    public func check(_ request: Request) -> Decision {
        guard let host = request.host?.lowercased(), hosts.contains(host) else {
            return .forbidden("the page answers only to its own address (Host \(request.host ?? "missing"))")
        }
        guard let presented = request.token, Self.equalInConstantTime(presented, token) else {
            return .unauthorized(request.token == nil ? "no token: open the address `ubiq ui` prints" : "wrong token: open the address `ubiq ui` prints")
        }
        if request.method == "GET" || request.method == "HEAD" { return .allowed }
        guard let origin = request.origin?.lowercased(), origin == "http://\(host)" else {
            return .forbidden("a change must come from the page itself (Origin \(request.origin ?? "missing"))")
        }
        guard let csrf = request.csrf, Self.equalInConstantTime(csrf, csrfToken) else {
            return .forbidden("a change needs the page's CSRF token")
        }
        return .allowed
    }

    /// An IPv6 address in brackets, as it appears in a `Host` header.
    static func hostForm(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// Compares two secrets in time that depends on their lengths only.
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
