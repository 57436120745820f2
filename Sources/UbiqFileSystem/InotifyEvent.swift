#if canImport(Glibc)
import Glibc
#endif

/// One event as read from an inotify descriptor.
struct InotifyEvent {
    var descriptor: Int32
    var mask: UInt32
    /// The name inside the watched folder, raw; empty for events about the folder itself.
    var name: [UInt8]

    func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }

    /// Parses the packed `struct inotify_event` records of one `read`.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = 0
        let header = 16  // wd, mask, cookie, len: four 32-bit fields
        while offset + header <= bytes.count {
            let descriptor = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + header
            guard nameStart + length <= bytes.count else { break }
            let raw = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(nameStart + length)])
            let name = Array(raw.prefix { $0 != 0 })
            events.append(InotifyEvent(descriptor: descriptor, mask: mask, name: name))
            offset = nameStart + length
        }
        return events
    }
}
