/// Cuts the control socket's byte stream into lines, one JSON-RPC message each.
///
/// ```
/// {"jsonrpc":"2.0","id":1,"method":"agent.status"}\n{"jsonrpc":"2.0",...
/// └──────────────── line (≤ maximumLength) ──────┘ └ next line ...
/// ```
/// A trailing `\r` is dropped so `\r\n` works too. A line that grows past
/// `maximumLength` without a newline is reported as ``Scan/tooLong`` instead of buffering
/// without bound. The framer remembers how far it has searched, so a long line arriving in
/// many reads is scanned once.
public struct LineFramer: Sendable {
    public enum Scan: Hashable, Sendable {
        /// A line of `length` bytes (without the line end) starts the input; drop `consumed`
        /// bytes (line end included) before scanning again.
        case line(length: Int, consumed: Int)
        case needMoreData
        case tooLong
    }

    public let maximumLength: Int
    private var searched = 0

    public init(maximumLength: Int) {
        precondition(maximumLength > 0)
        self.maximumLength = maximumLength
    }

    /// Looks for the next line at the start of `bytes`, the unconsumed input.
    public mutating func scan<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Scan {
        let limit = min(bytes.count, maximumLength + 1)
        let start = bytes.index(bytes.startIndex, offsetBy: min(searched, limit))
        let end = bytes.index(bytes.startIndex, offsetBy: limit)
        guard let newline = bytes[start..<end].firstIndex(of: UInt8(ascii: "\n")) else {
            searched = limit
            return bytes.count > maximumLength ? .tooLong : .needMoreData
        }
        searched = 0
        var length = bytes.distance(from: bytes.startIndex, to: newline)
        let consumed = length + 1
        if length > 0, bytes[bytes.index(bytes.startIndex, offsetBy: length - 1)] == UInt8(ascii: "\r") { length -= 1 }
        return .line(length: length, consumed: consumed)
    }
}
