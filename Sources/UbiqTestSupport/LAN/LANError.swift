/// Why a namespace LAN could not be built, used or removed; `message` says what to do next.
public struct LANError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        /// Root, a tool or kernel support is missing: tests should skip.
        case unsupported
        /// A prefix, host count or host index out of range.
        case invalidArgument
        /// A setup command (`ip`, `nsenter`, ...) failed.
        case commandFailed
        /// A host's dbus-daemon or avahi-daemon did not come up before the deadline.
        case hostDidNotStart
        /// A command inside a host ran past its deadline and was killed.
        case timedOut
        /// Processes or namespaces were still there after teardown.
        case teardownFailed
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "LANError.\(code.rawValue): \(message)" }
}
