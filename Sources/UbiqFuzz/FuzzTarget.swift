/// One kind of untrusted input and what ubiq does with it, for libFuzzer and for replaying a
/// corpus: `testOneInput` has the signature of `LLVMFuzzerTestOneInput`. It returns 0 for
/// every input; a bug shows as a crash, a hang or a runaway allocation, never as a result.
public struct FuzzTarget: Sendable {
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// The name on the command line and of the corpus folder, e.g. `peer-frames`.
    public let name: String
    public let summary: String
    public let testOneInput: TestOneInput
    /// Valid inputs to start a corpus from, by file name.
    public let seeds: @Sendable () throws -> [(name: String, bytes: [UInt8])]

    public static let all: [FuzzTarget] = [.peerFrames, .controlLines, .configFile, .accountBundle, .discoveryTXT, .recordLogs]

    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }

    /// Runs `testOneInput` over `bytes`, as libFuzzer does.
    public func run(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBufferPointer { testOneInput($0.baseAddress, $0.count) }
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes libFuzzer hands over; `data` is null when `size` is 0.
    init(fuzzInput data: UnsafePointer<UInt8>?, _ size: Int) {
        self.init(start: size == 0 ? nil : data, count: size)
    }
}
