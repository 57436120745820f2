import Foundation

/// A request that passed ``WebAccess``, as the page's routes see it.
public struct WebRequest: Sendable {
    public var method: String
    /// The path without the query.
    public var path: String
    public var query: [String: String]
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, path: String, query: [String: String] = [:], headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The first header of that name, compared without case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// A cookie's value from the `Cookie` headers.
    public func cookie(_ name: String) -> String? {
        for header in headers where header.name.lowercased() == "cookie" {
            for pair in header.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// Splits a request target into its path and its query's parameters (percent-decoded).
    static func split(target: String) -> (path: String, query: [String: String]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let key = keyValue.first.flatMap({ String($0).removingPercentEncoding }) else { continue }
                query[key] = keyValue.count == 2 ? String(keyValue[1]).removingPercentEncoding : ""
            }
        }
        return (String(parts.first ?? ""), query)
    }
}

/// What a route answers: a whole body, or a body written piece by piece as things happen
/// (server-sent events) by `stream`, which returns when it has no more, or throws once the
/// browser has gone.
public struct WebResponse: Sendable {
    public typealias Stream = @Sendable (_ write: @escaping @Sendable ([UInt8]) async throws -> Void) async throws -> Void

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var stream: Stream?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], stream: Stream? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = stream
    }

    /// A short plain-text answer, for errors.
    public static func text(_ status: Int, _ text: String) -> WebResponse {
        WebResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array((text + "\n").utf8))
    }
}
