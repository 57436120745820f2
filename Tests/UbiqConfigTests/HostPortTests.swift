import Testing
import UbiqConfig

struct HostPortTests {
    @Test(arguments: [
        ("0.0.0.0:22100", "0.0.0.0", 22100),
        ("example.com:1", "example.com", 1),
        ("my-host_1.lan:65535", "my-host_1.lan", 65535),
        ("[::1]:22100", "::1", 22100),
        ("[fe80::1%eth0]:5", "fe80::1%eth0", 5),
        ("[::ffff:192.168.1.2]:80", "::ffff:192.168.1.2", 80),
    ])
    func parsesValidAddresses(text: String, host: String, port: Int) throws {
        let parsed = try HostPort(text)
        #expect(parsed.host == host)
        #expect(parsed.port == port)
        #expect(parsed.description == text)
    }

    @Test func portZeroOnlyForListening() throws {
        #expect(try HostPort("0.0.0.0:0", allowPortZero: true).port == 0)
        let error = #expect(throws: ConfigError.self) { try HostPort("host:0") }
        #expect(error?.code == .invalidHostPort)
    }

    @Test(arguments: [
        "host", "host:", ":80", "host:65536", "host:-1", "host:8a", "host: 80", "host:000080",
        "::1:80", "[::1]80", "[::1]", "[::1]:", "[host]:80", "ho st:80", "", "[]:80",
    ])
    func refusesMalformedAddresses(text: String) {
        #expect {
            try HostPort(text)
        } throws: { error in
            (error as? ConfigError)?.code == .invalidHostPort
        }
    }

    @Test func bareIPv6SuggestsBrackets() {
        let error = #expect(throws: ConfigError.self) { try HostPort("fe80::1:22100") }
        #expect(error?.reason.contains("[fe80::1]:22100") == true)
    }
}
