import Foundation

/// The machine the figures were measured on, as docs/benchmarks.md records it.
struct Machine: Codable, Sendable {
    var cpu: String
    var cores: Int
    var memoryGiB: Int
    var kernel: String

    static func here() -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "?"
        var names = utsname()
        uname(&names)
        let kernel = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return Machine(cpu: model, cores: ProcessInfo.processInfo.activeProcessorCount,
                       memoryGiB: Int((Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824).rounded()), kernel: kernel)
    }

    var description: String { "\(cpu) (\(cores) cores, \(memoryGiB) GiB), Linux \(kernel)" }
}
