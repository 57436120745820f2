/// Why the control server could not start or a connection could not be used.
public struct ControlServerError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// The socket's folder belongs to another user.
        case folderNotOwned
        /// The socket's folder cannot be created or is not a folder.
        case folderUnusable
        /// Another agent answers on the socket.
        case alreadyRunning
        /// Something that is not a socket sits at the socket path.
        case pathOccupied
        /// Binding or securing the socket failed.
        case bindFailed
        /// The server stopped before it listened.
        case stopped
        /// The client has gone; nothing more can be sent to it.
        case connectionClosed
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
