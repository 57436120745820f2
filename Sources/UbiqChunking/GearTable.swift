/// FastCDC's 256 random 64-bit gear values, generated from a fixed seed with splitmix64 so
/// that every build on every machine has the same table, and so the same chunk boundaries.
enum GearTable {
    static let seed: UInt64 = 0x7562_6971_4344_4331  // "ubiqCDC1"

    static let values: [UInt64] = {
        var state = seed
        return (0..<256).map { _ in splitmix64(&state) }
    }()

    /// Each value shifted left by one, for checking two bytes per step.
    static let shiftedValues: [UInt64] = values.map { $0 &<< 1 }

    /// Steele, Lea, Flood, "Fast splittable pseudorandom number generators" (OOPSLA 2014).
    static func splitmix64(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
