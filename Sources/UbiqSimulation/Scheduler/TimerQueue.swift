/// The scheduler's pending timers, earliest first (then in the order they were set): a binary
/// heap of keys, with each timer's payload beside it, so a cancelled timer is dropped at once
/// and its key skipped when it comes up.
struct TimerQueue<Payload> {
    struct Key: Comparable {
        var at: Duration
        var id: UInt64
        static func < (a: Key, b: Key) -> Bool { (a.at, a.id) < (b.at, b.id) }
    }

    private var heap: [Key] = []
    private var payloads: [UInt64: Payload] = [:]

    var isEmpty: Bool { payloads.isEmpty }

    mutating func insert(_ payload: Payload, at: Duration, id: UInt64) {
        payloads[id] = payload
        heap.append(Key(at: at, id: id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes the timer out; nil when it already fired or was removed.
    mutating func remove(_ id: UInt64) -> Payload? { payloads.removeValue(forKey: id) }

    /// When the earliest pending timer is due.
    mutating func earliest() -> Duration? {
        dropRemoved()
        return heap.first?.at
    }

    /// Takes the earliest pending timer out.
    mutating func popEarliest() -> (key: Key, payload: Payload)? {
        dropRemoved()
        guard let key = heap.first else { return nil }
        popRoot()
        return (key, payloads.removeValue(forKey: key.id)!)
    }

    private mutating func dropRemoved() {
        while let key = heap.first, payloads[key.id] == nil { popRoot() }
    }

    private mutating func popRoot() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left] < heap[smallest] { smallest = left }
            if right < heap.count, heap[right] < heap[smallest] { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
