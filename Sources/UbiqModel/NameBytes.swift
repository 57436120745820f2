/// Shows a file name's bytes that are not valid UTF-8, for people: valid characters as text,
/// every other byte as `\xFF`, and a backslash as `\\`, so that what is shown is unambiguous.
public enum NameBytes {
    public static func escaped(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var result = ""
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead & 0xE0 == 0xC0 ? 2 : lead & 0xF0 == 0xE0 ? 3 : lead & 0xF8 == 0xF0 ? 4 : 0
            if length > 0, index + length <= bytes.count,
               let character = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
                result += character == "\\" ? "\\\\" : character
                index += length
            } else {
                let hex = String(lead, radix: 16, uppercase: true)
                result += "\\x" + (hex.count == 1 ? "0" + hex : hex)
                index += 1
            }
        }
        return result
    }
}
