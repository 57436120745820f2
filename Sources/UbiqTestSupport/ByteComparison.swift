import Glibc

/// Compares large byte arrays with `memcmp`: tests are built without optimisation, where an
/// element-by-element loop over tens of megabytes holds one of the test process's two pool
/// threads for many seconds and starves every other test of it.
public enum ByteComparison {
    /// The offset of the first byte where `a` and `b` differ, or `nil` where they are equal
    /// (a shorter array differs at its end).
    public static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                let common = min(a.count, b.count)
                var start = 0
                let block = 1 << 16
                while start < common {
                    let length = min(block, common - start)
                    if memcmp(a.baseAddress! + start, b.baseAddress! + start, length) != 0 {
                        return (start..<start + length).first { a[$0] != b[$0] }
                    }
                    start += length
                }
                return a.count == b.count ? nil : common
            }
        }
    }
}
