import Foundation
import Testing
import UbiqTestSupport
@testable import UbiqWeb

/// The token file: made once with mode 0600, read back the same, refused when others may
/// read it or when it holds no token.
@Suite struct WebTokenTests {
    @Test func theTokenIsMadeOnceAndKeptPrivate() throws {
        let folder = try TempDirectory(prefix: "ubiq-web")
        let path = folder.appending("ui-token")
        let first = try WebToken.loadOrCreate(at: path)
        #expect(first.count == 64)
        #expect(try WebToken.loadOrCreate(at: path) == first)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(WebToken.make() != WebToken.make())
    }

    @Test func aTokenOthersMayReadOrNoTokenIsRefused() throws {
        let folder = try TempDirectory(prefix: "ubiq-web")
        let path = folder.appending("ui-token")
        _ = try WebToken.loadOrCreate(at: path)
        chmod(path, 0o644)
        #expect(throws: WebError.self) { try WebToken.loadOrCreate(at: path) }
        try Data("not a token\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        #expect(throws: WebError.self) { try WebToken.loadOrCreate(at: path) }
    }
}
