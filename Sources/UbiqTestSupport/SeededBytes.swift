import Foundation
import UbiqModel

/// Incompressible bytes that are the same on every run for one seed: `SplitMix64`'s words
/// in native byte order (a tail short of a whole word stays zero). For test and benchmark
/// files whose content matters only in being random and reproducible.
public enum SeededBytes {
    public static func data(_ count: Int, seed: UInt64) -> Data {
        var generator = SplitMix64(seed: seed)
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for i in words.indices { words[i] = generator.next() }
        }
        return data
    }
}
