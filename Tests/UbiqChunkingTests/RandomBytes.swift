/// Deterministic pseudo-random test data (splitmix64), the same on every run.
func randomBytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    var i = 0
    while i < count {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        for k in 0..<8 where i + k < count {
            bytes[i + k] = UInt8(truncatingIfNeeded: z >> (8 * UInt64(k)))
        }
        i += 8
    }
    return bytes
}
