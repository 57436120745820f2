import UbiqModel

/// What a device holds of a version it is assembling, on the wire (protocol 6). Decoding
/// refuses a message whose container, path, key or ranges are not well formed, or that
/// holds more than ``maxRanges`` ranges: the sender splits what it has to say.
public enum ChunkProgressMapping {
    public static let maxRanges = 512

    /// The messages that carry `progress`, each with at most ``maxRanges`` ranges, held and
    /// claimed together.
    public static func messages(_ progress: SwarmProgress) -> [Ubiq_Wire_ChunkProgress] {
        let ranges = progress.held.ranges.map { ($0, false) } + progress.claimed.ranges.map { ($0, true) }
        var messages: [Ubiq_Wire_ChunkProgress] = []
        var start = 0
        repeat {
            var message = Ubiq_Wire_ChunkProgress()
            message.containerID = progress.version.container.rawValue
            message.path = progress.version.path.rawValue
            message.contentKey = progress.version.contentKey
            message.size = progress.version.size
            for (range, claimed) in ranges[start..<min(ranges.count, start + maxRanges)] {
                var wire = Ubiq_Wire_ByteRange()
                wire.start = range.lowerBound
                wire.end = range.upperBound
                if claimed { message.claimed.append(wire) } else { message.held.append(wire) }
            }
            start += maxRanges
            message.ended = progress.ended && start >= ranges.count
            messages.append(message)
        } while start < ranges.count
        return messages
    }

    public static func progress(_ message: Ubiq_Wire_ChunkProgress) throws(WireError) -> SwarmProgress {
        let container: ContainerID
        let path: RelativePath
        do {
            container = try ContainerID(message.containerID)
            path = try RelativePath(message.path)
        } catch {
            throw WireError(.invalidPath, "chunk progress names a bad container or path: \(error)")
        }
        let key = message.contentKey.utf8
        guard key.count == 64, key.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw WireError(.malformed, "chunk progress with a content key that is not 64 lowercase hex digits")
        }
        guard message.held.count + message.claimed.count <= maxRanges else {
            throw WireError(.malformed, "chunk progress with \(message.held.count + message.claimed.count) ranges, more than \(maxRanges)")
        }
        func ranges(_ wire: [Ubiq_Wire_ByteRange]) throws(WireError) -> RangeSet<UInt64> {
            var set = RangeSet<UInt64>()
            for range in wire {
                guard range.start < range.end, range.end <= message.size else {
                    throw WireError(.malformed, "chunk progress with range \(range.start)..<\(range.end) in a file of \(message.size) bytes")
                }
                set.insert(contentsOf: range.start..<range.end)
            }
            return set
        }
        return SwarmProgress(version: SwarmVersion(container: container, path: path, contentKey: message.contentKey, size: message.size),
                             held: try ranges(message.held), claimed: try ranges(message.claimed), ended: message.ended)
    }
}
