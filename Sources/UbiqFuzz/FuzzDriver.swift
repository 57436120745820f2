#if UBIQ_FUZZING
import CFuzzerDriver
import Foundation

/// Hands the process to libFuzzer with `target` (builds of `scripts/fuzz.sh` only).
public enum FuzzDriver {
    /// `arguments` are libFuzzer's flags and corpus folders; the first is the program name.
    public static func run(_ target: FuzzTarget, arguments: [String]) -> CInt {
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        return pointers.withUnsafeMutableBufferPointer { buffer in
            var argc = CInt(arguments.count)
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv, target.testOneInput)
        }
    }
}
#endif
