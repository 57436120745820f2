/// Byte counts for people: `0 B`, `999 B`, `1.5 KiB`, `12.3 MiB`, `512 GiB`.
enum ByteCount {
    static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let rounded = value < 100 ? (value * 10).rounded() / 10 : value.rounded()
        let text = value < 100 ? String(format: "%.1f", rounded) : String(Int(rounded))
        return "\(text) \(units[unit])"
    }
}
