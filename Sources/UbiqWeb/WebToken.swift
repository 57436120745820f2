import Crypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The page's access token: 32 random bytes in hex, kept in the state folder (`ui-token`,
/// mode 0600), so that `ubiq ui` can print the page's address with it and an open page
/// keeps working across restarts of the agent.
public enum WebToken {
    /// The token in the file at `path`, made there first when there is none. A file that
    /// other users may read, or that does not hold a token, is refused.
    public static func loadOrCreate(at path: String) throws(WebError) -> String {
        for _ in 0..<2 {
            if let token = try existing(path) { return token }
            let token = make()
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd < 0 {
                if errno == EEXIST { continue }
                throw WebError(.token, "cannot create \(path): \(String(cString: strerror(errno))); check the state folder's owner and mode")
            }
            defer { close(fd) }
            let line = Array((token + "\n").utf8)
            let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == line.count, fsync(fd) == 0 else {
                unlink(path)
                throw WebError(.token, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            return token
        }
        throw WebError(.token, "\(path) keeps appearing and vanishing; is another agent using this state folder?")
    }

    /// 32 bytes from the system's generator, in lowercase hex.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }.joined()
    }

    /// The page's CSRF token for the access token `token`: an HMAC of it, so it stays the
    /// same across restarts of the agent (a page left open keeps working), and cannot be
    /// had without the token.
    public static func csrf(for token: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array("ubiq-ui-csrf/1".utf8), using: SymmetricKey(data: Array(token.utf8)))
        return code.map { String($0 >> 4, radix: 16) + String($0 & 0xF, radix: 16) }.joined()
    }

    private static func existing(_ path: String) throws(WebError) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw WebError(.token, "cannot open \(path): \(String(cString: strerror(errno))); remove it and start the agent again")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw WebError(.token, "cannot read \(path): \(String(cString: strerror(errno)))") }
        guard status.st_uid == geteuid(), status.st_mode & 0o077 == 0 else {
            throw WebError(.token, "\(path) may be read by other users; remove it and start the agent again for a new token")
        }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw WebError(.token, "cannot read \(path): \(String(cString: strerror(errno)))") }
        let text = String(decoding: buffer[0..<count], as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
        guard text.count == 64, text.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
            throw WebError(.token, "\(path) does not hold a token; remove it and start the agent again")
        }
        return text
    }
}
