import Foundation

/// A headless Chromium driven over the W3C WebDriver protocol (https://www.w3.org/TR/webdriver2/)
/// through `chromedriver`, for tests that use the agent's web page as a person does: it
/// loads pages, finds elements by CSS selector, clicks and types, and reads what is shown.
public final class WebDriver: Sendable {
    /// A page element, by the id the driver gave it.
    public struct Element: Sendable {
        public let id: String
    }

    /// The driver refused a command; `message` is its own.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// `chromedriver`; Foundation's `Process` is only started here and stopped in ``quit()``.
    private final class Driver: @unchecked Sendable {
        let process = Process()
        let exit: ProcessExit

        init() { exit = ProcessExit(of: process) }

        /// Ends the driver and waits without holding a thread.
        func stop() async {
            if process.isRunning { process.terminate() }
            await exit.wait()
        }
    }

    private let driver = Driver()
    private let base: URL
    private let session: String
    private let profile: TempDirectory

    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"

    /// Starts `chromedriver` on a free loopback port and a headless browser of
    /// `width`×`height` CSS pixels, in a profile of its own.
    public init(width: Int = 1280, height: Int = 900, colorScheme: String = "light") async throws {
        // CI installs both (scripts/install-deps.sh): a missing one fails the test, with what to do.
        for path in [Self.chromium, Self.chromedriver] where access(path, X_OK) != 0 {
            throw Failure(description: "\(path) is not installed; run scripts/install-deps.sh (apt-get install chromium chromium-driver)")
        }
        let port = try freeLoopbackPort()
        profile = try TempDirectory()
        driver.process.executableURL = URL(fileURLWithPath: Self.chromedriver)
        driver.process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1", "--log-path=\(profile.path)/chromedriver.log"]
        driver.process.standardOutput = FileHandle.nullDevice
        driver.process.standardError = FileHandle.nullDevice
        try driver.process.runWithDefaultSignalMask()
        base = URL(string: "http://127.0.0.1:\(port)")!
        let base = self.base
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": [
                "binary": Self.chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                         "--window-size=\(width),\(height)", "--user-data-dir=\(profile.path)/profile",
                         "--force-prefers-color-scheme=\(colorScheme)"],
            ],
        ]]]
        do {
            try await waitUntil("chromedriver to answer", timeout: .seconds(30)) {
                (try? await Self.send(base.appendingPathComponent("status"), method: "GET", body: nil)) != nil
            }
            let answer = try await Self.send(base.appendingPathComponent("session"), method: "POST", body: capabilities)
            guard let value = answer as? [String: Any], let id = value["sessionId"] as? String else {
                throw Failure(description: "chromedriver gave no session: \(String(describing: answer))")
            }
            session = id
        } catch {
            await driver.stop()
            throw error
        }
    }

    /// Ends the browser and the driver.
    public func quit() async {
        _ = try? await command("", method: "DELETE")
        await driver.stop()
    }

    public func open(_ url: String) async throws {
        _ = try await command("url", body: ["url": url])
    }

    /// The first element `selector` matches, waiting up to `timeout` for one to appear.
    public func element(_ selector: String, timeout: Duration = .seconds(10)) async throws -> Element {
        var found: Element?
        try await waitUntil("an element \(selector)", timeout: timeout, every: .milliseconds(20)) {
            found = try await elements(selector).first
            return found != nil
        }
        return found!
    }

    /// Every element `selector` matches now.
    public func elements(_ selector: String) async throws -> [Element] {
        let answer = try await command("elements", body: ["using": "css selector", "value": selector])
        return (answer as? [[String: Any]] ?? []).compactMap { ($0[Self.elementKey] as? String).map(Element.init) }
    }

    public func click(_ element: Element) async throws {
        _ = try await command("element/\(element.id)/click", body: [:])
    }

    /// Clicks the first element `selector` matches, once there is one; found again when the
    /// page replaced it between the finding and the click, as a live page does.
    public func click(_ selector: String, timeout: Duration = .seconds(10)) async throws {
        try await waitUntil("a click on \(selector)", timeout: timeout, every: .milliseconds(20)) {
            guard let element = try await elements(selector).first else { return false }
            do { try await click(element) } catch let failure as Failure where failure.description.contains("stale element") {
                return false
            }
            return true
        }
    }

    /// Replaces the text of an input or text area with `text`, as typed.
    public func type(_ text: String, into element: Element) async throws {
        _ = try await command("element/\(element.id)/clear", body: [:])
        _ = try await command("element/\(element.id)/value", body: ["text": text])
    }

    /// The text the element shows.
    public func text(_ element: Element) async throws -> String {
        try await command("element/\(element.id)/text", method: "GET") as? String ?? ""
    }

    /// The text the first element `selector` matches shows, once there is one (found again
    /// when the page replaced it meanwhile).
    public func text(_ selector: String, timeout: Duration = .seconds(10)) async throws -> String {
        var shown = ""
        try await waitUntil("the text of \(selector)", timeout: timeout, every: .milliseconds(20)) {
            guard let element = try await elements(selector).first else { return false }
            do { shown = try await text(element) } catch let failure as Failure where failure.description.contains("stale element") {
                return false
            }
            return true
        }
        return shown
    }

    /// Runs `script` in the page (its `return` value comes back as JSON).
    public func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("execute/sync", body: ["script": script, "args": arguments])
    }

    /// A PNG of the browser's viewport.
    public func screenshot() async throws -> Data {
        guard let text = try await command("screenshot", method: "GET") as? String, let data = Data(base64Encoded: text) else {
            throw Failure(description: "the screenshot was not base64")
        }
        return data
    }

    /// A PNG of the whole page, however long, at the window's width.
    public func fullPageScreenshot(to path: String) async throws {
        let height = try await execute("return Math.ceil(document.documentElement.scrollHeight)") as? Int ?? 900
        let width = try await execute("return window.outerWidth") as? Int ?? 1280
        _ = try await command("window/rect", body: ["width": width, "height": min(height + 100, 6000)])
        try await screenshot().write(to: URL(fileURLWithPath: path))
    }

    private func command(_ path: String, method: String = "POST", body: [String: Any]? = nil) async throws -> Any? {
        var url = base.appendingPathComponent("session").appendingPathComponent(session)
        if !path.isEmpty { url = url.appendingPathComponent(path) }
        return try await Self.send(url, method: method, body: body)
    }

    /// One WebDriver command: HTTP/1.1 to the driver on loopback, on a thread of its own
    /// (the read blocks), the connection closed after the answer.
    private static func send(_ url: URL, method: String, body: [String: Any]?) async throws -> Any? {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let port = url.port ?? 80
        let (status, data) = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Int, Data), any Error>) in
            Thread {
                continuation.resume(with: Result { try exchange(port: port, method: method, path: url.path, body: payload) })
            }.start()
        }
        let json = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any]
        let value = json?["value"]
        if status != 200 {
            let detail = (value as? [String: Any]).map { "\($0["error"] ?? ""): \($0["message"] ?? "")" } ?? String(decoding: data, as: UTF8.self)
            throw Failure(description: "WebDriver \(method) \(url.path) answered \(status): \(detail)")
        }
        return value is NSNull ? nil : value
    }

    private static func exchange(port: Int, method: String, path: String, body: Data) throws -> (Int, Data) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect to chromedriver: \(String(cString: strerror(errno)))") }
        var request = Data("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n".utf8)
        request.append(Data("Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8))
        request.append(body)
        try request.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = Glibc.send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard count > 0 else { throw Failure(description: "send to chromedriver: \(String(cString: strerror(errno)))") }
                sent += count
            }
        }
        // The driver keeps the connection open after its answer: read the head, then as many
        // bytes as its Content-Length says.
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        func complete() -> Bool {
            guard let split = answer.firstRange(of: Data("\r\n\r\n".utf8)) else { return false }
            let head = String(decoding: answer[..<split.lowerBound], as: UTF8.self).lowercased()
            if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
               let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) {
                return answer.count - split.upperBound >= length
            }
            return false
        }
        while !complete() {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            answer.append(contentsOf: buffer[0..<count])
        }
        guard let split = answer.firstRange(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "chromedriver's answer has no head")
        }
        let head = String(decoding: answer[..<split.lowerBound], as: UTF8.self)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, Data(answer[split.upperBound...]))
    }
}
