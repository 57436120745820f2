/// The chunk size bounds of content-defined chunking, and the masks derived from them.
///
/// Every device must use the same parameters for a container, or the same content gets
/// different chunks and nothing is reused; the defaults (16 KiB / 64 KiB / 256 KiB,
/// normalization level 2) are the ones ubiq uses everywhere.
public struct ChunkerParameters: Sendable, Hashable {
    public let minimumSize: Int
    public let averageSize: Int
    public let maximumSize: Int
    /// The normalization level of FastCDC's normalized chunking: how many bits MaskS has
    /// more, and MaskL fewer, than the average size needs.
    public let normalizationLevel: Int

    /// The harder mask, used before the average size is reached.
    public let maskS: UInt64
    /// The easier mask, used after the average size is reached.
    public let maskL: UInt64

    public static let `default` = try! ChunkerParameters(
        minimumSize: 16 << 10, averageSize: 64 << 10, maximumSize: 256 << 10, normalizationLevel: 2)

    /// `averageSize` must be a power of two between `minimumSize` and `maximumSize`.
    public init(minimumSize: Int, averageSize: Int, maximumSize: Int, normalizationLevel: Int = 2) throws(ChunkingError) {
        guard minimumSize >= 64, minimumSize < averageSize, averageSize < maximumSize,
              maximumSize <= Int(UInt32.max)
        else {
            throw ChunkingError(.invalidParameters,
                "chunk sizes must satisfy 64 <= min < average < max <= 4 GiB; got \(minimumSize)/\(averageSize)/\(maximumSize)")
        }
        guard averageSize.nonzeroBitCount == 1 else {
            throw ChunkingError(.invalidParameters, "the average chunk size must be a power of two; got \(averageSize)")
        }
        let bits = averageSize.trailingZeroBitCount
        guard normalizationLevel >= 0, bits - normalizationLevel >= 1, bits + normalizationLevel <= 47 else {
            throw ChunkingError(.invalidParameters,
                "normalization level \(normalizationLevel) does not fit an average size of 2^\(bits)")
        }
        self.minimumSize = minimumSize
        self.averageSize = averageSize
        self.maximumSize = maximumSize
        self.normalizationLevel = normalizationLevel
        self.maskS = Self.spreadMask(ones: bits + normalizationLevel)
        self.maskL = Self.spreadMask(ones: bits - normalizationLevel)
    }

    /// A mask with `ones` bits spread evenly over bits 16...62 of the gear hash, as the
    /// paper recommends ("padding zeros"): every bit then depends on at least 17 bytes of
    /// input, which widens the effective sliding window. Bit 63 stays clear so two bytes can
    /// be checked per step.
    static func spreadMask(ones: Int) -> UInt64 {
        var mask: UInt64 = 0
        for i in 0..<ones {
            mask |= 1 << UInt64(62 - (i * 47) / ones)
        }
        return mask
    }
}
