import Foundation
import Synchronization

/// A pipe to one child process that no other child inherits: both ends are close-on-exec
/// from the moment they exist (a socket pair made with `SOCK_CLOEXEC`; Glibc's `pipe2` is not
/// visible to Swift), and the child gets its end through the `dup2` of its standard stream. Foundation's `Pipe` is not close-on-exec, so an agent
/// started by another test at the same moment kept a copy of a `ubiq` command's output pipe,
/// and the test reading that output to its end waited until the agent stopped (seen as the
/// whole test process stalling: the waiting read held one of its two pool threads).
public struct PrivatePipe: Sendable {
    public let reading: FileHandle
    public let writing: FileHandle

    public init() throws {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "socketpair: \(String(cString: strerror(errno)))"])
        }
        reading = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
        writing = FileHandle(fileDescriptor: fds[1], closeOnDealloc: true)
    }

    /// Closes this process's copy of the child's end, once the child runs: the reader then
    /// sees the end of the data when the child exits.
    public func childStarted(writesTo child: Bool = true) {
        try? (child ? writing : reading).close()
    }

    /// Everything the child writes, read on a thread of its own until the end of the data,
    /// or until `exited` says the child is gone and nothing more is waiting: another child
    /// that holds a copy of the writing end (Foundation may hand one on) never keeps the
    /// reader waiting. Call ``Reading/finish()`` once the child has exited.
    public func readInBackground() -> Reading {
        Reading(reading)
    }

    /// A background read of one pipe; see ``readInBackground()``.
    public final class Reading: Sendable {
        private enum State {
            case reading(waiter: CheckedContinuation<Data, Never>?)
            case done
        }

        private let data = Mutex(Data())
        private let exited = Atomic<Bool>(false)
        private let state = Mutex(State.reading(waiter: nil))

        init(_ handle: FileHandle) {
            Thread { [self] in
                let fd = handle.fileDescriptor
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    let ready = poll(&entry, 1, 50)
                    if ready < 0 && errno == EINTR { continue }
                    if ready == 0 {
                        if exited.load(ordering: .acquiring) { break }
                        continue
                    }
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    data.withLock { $0.append(contentsOf: buffer[0..<count]) }
                }
                let waiter = state.withLock { state -> CheckedContinuation<Data, Never>? in
                    defer { state = .done }
                    guard case .reading(let waiter) = state else { return nil }
                    return waiter
                }
                waiter?.resume(returning: data.withLock { $0 })
            }.start()
        }

        /// What was read, once the child has exited and everything it wrote is in. Waits for
        /// the reading thread without holding one of the caller's.
        public func finish() async -> Data {
            exited.store(true, ordering: .releasing)
            return await withCheckedContinuation { continuation in
                let done = state.withLock { state -> Bool in
                    guard case .reading = state else { return true }
                    state = .reading(waiter: continuation)
                    return false
                }
                if done { continuation.resume(returning: data.withLock { $0 }) }
            }
        }
    }
}
