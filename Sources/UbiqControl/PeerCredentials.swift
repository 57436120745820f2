#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// The process at the other end of a control connection, as the kernel reports it.
public struct PeerCredentials: Hashable, Sendable {
    /// Zero where the platform does not report it.
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

extension PeerCredentials {
    /// Reads the credentials of a connected Unix socket channel.
    ///
    /// NIO's `ChannelOption.socketOption` only carries `CInt` values, but every NIOPosix
    /// socket channel is a `SocketOptionProvider`, whose `unsafeGetSocketOption` runs
    /// `getsockopt` on the channel's own descriptor for any value type. On Linux that is
    /// `SO_PEERCRED` into a `struct ucred`; on Darwin `LOCAL_PEERCRED` into `struct xucred`.
    static func read(from channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(
                ControlServerError(.bindFailed, "the control channel does not expose socket options"))
        }
        #if os(Linux)
        // `struct ucred { pid_t pid; uid_t uid; gid_t gid; }` needs _GNU_SOURCE, which Swift's
        // Glibc module lacks; three 32-bit fields read as a homogeneous tuple have its layout.
        let future: EventLoopFuture<(UInt32, UInt32, UInt32)> = provider.unsafeGetSocketOption(
            level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        return future.map { PeerCredentials(pid: Int32(bitPattern: $0.0), uid: $0.1, gid: $0.2) }
        #elseif canImport(Darwin)
        let future: EventLoopFuture<xucred> = provider.unsafeGetSocketOption(
            level: NIOBSDSocket.OptionLevel(rawValue: SOL_LOCAL), name: NIOBSDSocket.Option(rawValue: LOCAL_PEERCRED))
        return future.map { PeerCredentials(pid: 0, uid: $0.cr_uid, gid: $0.cr_groups.0) }
        #else
        return channel.eventLoop.makeFailedFuture(
            ControlServerError(.bindFailed, "peer credentials are not available on this platform"))
        #endif
    }
}
