import Dispatch
import Foundation
import Synchronization
import UbiqModel

extension FileChunker {
    /// Reads the file once on a helper thread, in blocks, and finds boundaries there while the
    /// calling thread hashes each chunk straight from its block, calling `body` in order on
    /// the calling thread. Reading the bytes only once matters: copying them out of the page
    /// cache a second time cost as much as a quarter of the hashing.
    func forEachChunkConcurrently(
        ofFileDescriptor fd: Int32, holes: HoleMap?, _ body: (ChunkRef) -> Void
    ) throws(ChunkingError) -> UInt64 {
        let queue = CutQueue()
        let chunker = self
        let thread = Thread {
            do throws(ChunkingError) {
                queue.finish(.success(try chunker.cutBlocks(of: fd, holes: holes, into: queue)))
            } catch {
                queue.finish(.failure(error))
            }
        }
        thread.name = "ubiq-chunker"
        thread.start()

        // Always drain the queue: the helper must be done with `fd` before this returns.
        while let cut = queue.pop() {
            guard let block = cut.block else {
                body(ChunkRef(offset: cut.offset, size: UInt32(cut.length), hash: ZeroChunks.hash(ofZeros: UInt32(cut.length))))
                continue
            }
            let bytes = UnsafeRawBufferPointer(start: block.base + cut.start, count: cut.length)
            body(ChunkRef(offset: cut.offset, size: UInt32(cut.length), hash: ChunkHasher.hash(buffer: bytes)))
        }
        return try queue.result.get()
    }

    /// The bytes one block of the helper thread holds beyond the rest of the previous one.
    var blockSize: Int { max(readSize * 4, parameters.maximumSize) }

    /// Reads `fd` into blocks and queues every chunk's place in them; returns the file's size.
    /// The bytes of a chunk that a block cuts short move to the start of the next block;
    /// chunks of zeros in `holes` are queued without a block and reading goes on after them.
    private func cutBlocks(of fd: Int32, holes: HoleMap?, into queue: CutQueue) throws(ChunkingError) -> UInt64 {
        #if os(Linux)
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        #endif
        let maximum = parameters.maximumSize
        let capacity = blockSize + maximum
        let pool = BlockPool(capacity: capacity)
        var carried: (block: ReadBlock, start: Int, count: Int)?
        var blockOffset: UInt64 = 0  // file offset of the block's first byte
        while true {
            let block = ReadBlock(from: pool)
            var end = 0
            if let carried {
                block.base.copyMemory(from: carried.block.base + carried.start, byteCount: carried.count)
                end = carried.count
            }
            carried = nil
            var atEnd = false
            while !atEnd && end < capacity {
                let n = try Self.readSome(fd, into: block.base + end, count: capacity - end, at: blockOffset + UInt64(end))
                if n == 0 { atEnd = true } else { end += n }
            }
            var start = 0
            var skippedTo: UInt64?
            while start < end && (atEnd || end - start >= maximum) {
                if let holes, let after = holes.stepOver(at: blockOffset + UInt64(start), { zero in
                    queue.push(Cut(block: nil, start: 0, length: Int(zero.size), offset: zero.offset))
                }) {
                    skippedTo = after
                    break
                }
                let length = cdc.cutPoint(in: UnsafeRawBufferPointer(start: block.base + start, count: end - start))
                queue.push(Cut(block: block, start: start, length: length, offset: blockOffset + UInt64(start)))
                start += length
            }
            if let skippedTo {
                blockOffset = skippedTo
                continue
            }
            if atEnd { return blockOffset + UInt64(end) }
            if start < end { carried = (block, start, end - start) }
            blockOffset += UInt64(start)
        }
    }
}

/// A buffer of file bytes shared by the reading and the hashing thread. The reader fills it
/// before handing out cuts into it and never writes it again, so both may read it freely.
/// It goes back to its pool when the last cut into it is hashed.
final class ReadBlock: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    private let pool: BlockPool

    /// Waits until the pool has a free buffer.
    init(from pool: BlockPool) {
        self.pool = pool
        base = pool.take()
    }

    deinit { pool.give(base) }
}

/// The few buffers one file's chunking reuses, so the reader cannot run ahead of the hasher
/// by more than ``blocks`` and fresh memory is not faulted in for every block.
final class BlockPool: @unchecked Sendable {
    static let blocks = 4
    /// Free buffers by address (raw pointers are not `Sendable`).
    private let free: Mutex<[UInt]>
    private let available = DispatchSemaphore(value: BlockPool.blocks)

    init(capacity: Int) {
        free = Mutex((0..<Self.blocks).map { _ in UInt(bitPattern: UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 4096)) })
    }

    func take() -> UnsafeMutableRawPointer {
        available.wait()
        return UnsafeMutableRawPointer(bitPattern: free.withLock { $0.removeLast() })!
    }

    func give(_ buffer: UnsafeMutableRawPointer) {
        free.withLock { $0.append(UInt(bitPattern: buffer)) }
        available.signal()
    }

    deinit {
        free.withLock { buffers in
            for address in buffers { UnsafeMutableRawPointer(bitPattern: address)?.deallocate() }
        }
    }
}

/// One chunk found by the helper thread: where it lies in its block and in the file; no
/// block for a chunk of zeros in a hole, which was not read.
struct Cut: Sendable {
    var block: ReadBlock?
    var start: Int
    var length: Int
    var offset: UInt64
}

/// Hands cuts from the boundary thread to the hashing thread, in order.
final class CutQueue: Sendable {
    private struct State {
        /// Taken cuts are cleared at once, so their blocks are freed as soon as they are hashed.
        var cuts: [Cut?] = []
        var head = 0
        var result: Result<UInt64, ChunkingError>?
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)

    func push(_ cut: Cut) {
        state.withLock { $0.cuts.append(cut) }
        available.signal()
    }

    func finish(_ result: Result<UInt64, ChunkingError>) {
        state.withLock { $0.result = result }
        available.signal()
    }

    /// The next cut, waiting for it; nil once the producer has finished and all are taken.
    func pop() -> Cut? {
        available.wait()
        return state.withLock { state in
            guard state.head < state.cuts.count else { return nil }
            let cut = state.cuts[state.head]
            state.cuts[state.head] = nil
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
