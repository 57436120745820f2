import Testing
@testable import UbiqWeb

/// The checks before the page: foreign hosts, missing or wrong tokens, and writes without the
/// CSRF token or from another origin are refused.
@Suite struct WebAccessTests {
    let access = WebAccess(token: "t0ken", csrfToken: "csrf", listenHost: "127.0.0.1", port: 22180)

    func request(_ method: String = "GET", host: String? = "127.0.0.1:22180", origin: String? = nil,
                 token: String? = "t0ken", csrf: String? = nil) -> WebAccess.Request {
        WebAccess.Request(method: method, host: host, origin: origin, token: token, csrf: csrf)
    }

    @Test func theOwnAddressWithTheTokenMayRead() {
        #expect(access.check(request()) == .allowed)
        #expect(access.check(request(host: "localhost:22180")) == .allowed)
        #expect(access.check(request(host: "LOCALHOST:22180")) == .allowed)
        #expect(access.check(request(host: "[::1]:22180")) == .allowed)
    }

    @Test(arguments: [nil, "evil.example:22180", "127.0.0.1", "127.0.0.1:80", "localhost.evil.example:22180", "192.168.1.9:22180"])
    func aForeignHostIsForbiddenEvenWithTheToken(host: String?) {
        guard case .forbidden = access.check(request(host: host)) else {
            Issue.record("Host \(host ?? "nil") was let in")
            return
        }
    }

    @Test func aMissingOrWrongTokenIsUnauthorized() {
        guard case .unauthorized = access.check(request(token: nil)) else { Issue.record("no token let in"); return }
        guard case .unauthorized = access.check(request(token: "t0kem")) else { Issue.record("wrong token let in"); return }
        guard case .unauthorized = access.check(request(token: "t0ken ")) else { Issue.record("longer token let in"); return }
    }

    @Test func aWriteNeedsTheCSRFTokenAndTheOwnOrigin() {
        let own = "http://127.0.0.1:22180"
        #expect(access.check(request("POST", origin: own, csrf: "csrf")) == .allowed)
        #expect(access.check(request("POST", host: "localhost:22180", origin: "http://localhost:22180", csrf: "csrf")) == .allowed)
        let refused = [
            request("POST", origin: own),
            request("POST", origin: own, csrf: "wrong"),
            request("POST", csrf: "csrf"),
            request("POST", origin: "http://evil.example", csrf: "csrf"),
            request("POST", origin: "http://localhost:22180", csrf: "csrf"),
            request("DELETE", origin: "null", csrf: "csrf"),
        ]
        for (index, request) in refused.enumerated() {
            guard case .forbidden = access.check(request) else {
                Issue.record("write \(index) was let in")
                continue
            }
        }
    }

    @Test func aListenAddressOfItsOwnIsAccepted() {
        let wide = WebAccess(token: "t", csrfToken: "c", listenHost: "192.168.1.9", port: 8080)
        #expect(wide.check(WebAccess.Request(method: "GET", host: "192.168.1.9:8080", token: "t")) == .allowed)
        let six = WebAccess(token: "t", csrfToken: "c", listenHost: "fd00::9", port: 8080)
        #expect(six.check(WebAccess.Request(method: "GET", host: "[fd00::9]:8080", token: "t")) == .allowed)
    }
}

