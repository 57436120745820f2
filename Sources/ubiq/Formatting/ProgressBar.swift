/// A one-line text progress bar: `[#########-----------]  45%  4.5 MiB of 10 MiB  path`.
enum ProgressBar {
    static let width = 24

    static func line(path: String, done: Int64, total: Int64) -> String {
        let fraction = total <= 0 ? 1 : min(1, max(0, Double(done) / Double(total)))
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = String(Int((fraction * 100).rounded(.down))).leftPadded(to: 3)
        return "[\(bar)] \(percent)%  \(ByteCount.format(done)) of \(ByteCount.format(total))  \(path)"
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
