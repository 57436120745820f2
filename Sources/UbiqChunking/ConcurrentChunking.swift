import Dispatch
import Foundation
import Synchronization
import UbiqModel

extension FileChunker {
    /// Finds boundaries on a helper thread while the calling thread reads each chunk again
    /// (from the page cache) and hashes it, calling `body` in order on the calling thread.
    func forEachChunkConcurrently(
        ofFileDescriptor fd: Int32, _ body: (ChunkRef) -> Void
    ) throws(ChunkingError) -> UInt64 {
        let queue = CutQueue()
        let chunker = self
        let thread = Thread {
            do throws(ChunkingError) {
                let size = try chunker.forEachCut(ofFileDescriptor: fd) { offset, bytes in
                    queue.push(Cut(offset: offset, length: bytes.count))
                }
                queue.finish(.success(size))
            } catch {
                queue.finish(.failure(error))
            }
        }
        thread.name = "ubiq-chunker"
        thread.start()

        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: parameters.maximumSize, alignment: 4096)
        defer { buffer.deallocate() }
        var failure: ChunkingError?
        // Always drain the queue: the helper must be done with `fd` before this returns.
        while let cut = queue.pop() {
            guard failure == nil else { continue }
            let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[..<cut.length])
            if let error = Self.read(fd, into: bytes, at: cut.offset) {
                failure = error
                queue.cancel()
                continue
            }
            body(ChunkRef(offset: cut.offset, size: UInt32(cut.length), hash: ChunkHasher.hash(buffer: UnsafeRawBufferPointer(bytes))))
        }
        if let failure { throw failure }
        return try queue.result.get()
    }

    private static func read(_ fd: Int32, into bytes: UnsafeMutableRawBufferPointer, at offset: UInt64) -> ChunkingError? {
        var done = 0
        while done < bytes.count {
            let n = pread(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n > 0 {
                done += n
            } else if n == 0 {
                return ChunkingError(.fileChanged, "the file got shorter while it was being chunked")
            } else if errno != EINTR {
                return ChunkingError.reading(errno)
            }
        }
        return nil
    }
}

/// One boundary found by the helper thread.
struct Cut: Sendable {
    var offset: UInt64
    var length: Int
}

/// Hands cuts from the boundary thread to the hashing thread, in order.
final class CutQueue: Sendable {
    private struct State {
        var cuts: [Cut] = []
        var head = 0
        var result: Result<UInt64, ChunkingError>?
        var cancelled = false
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)

    /// Adds a cut; false once the consumer has cancelled.
    func push(_ cut: Cut) -> Bool {
        let cancelled = state.withLock { state in
            state.cuts.append(cut)
            return state.cancelled
        }
        available.signal()
        return !cancelled
    }

    func finish(_ result: Result<UInt64, ChunkingError>) {
        state.withLock { $0.result = result }
        available.signal()
    }

    func cancel() {
        state.withLock { $0.cancelled = true }
    }

    /// The next cut, waiting for it; nil once the producer has finished and all are taken.
    func pop() -> Cut? {
        available.wait()
        return state.withLock { state in
            guard state.head < state.cuts.count else { return nil }
            let cut = state.cuts[state.head]
            state.head += 1
            if state.head >= 4096 {
                state.cuts.removeFirst(state.head)
                state.head = 0
            }
            return cut
        }
    }

    var result: Result<UInt64, ChunkingError> {
        state.withLock { $0.result ?? .failure(ChunkingError(.fileChanged, "chunking ended early")) }
    }
}
