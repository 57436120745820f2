import Testing
import UbiqFileSystem

@Suite struct SymlinkPolicyTests {
    @Test(arguments: [
        ("Documents/a/link", "b", true),
        ("Documents/a/link", "../b/c", true),
        ("Documents/a/link", "../../data.json", true),
        ("Documents/a/link", "./x/./y", true),
        ("Documents/link", "..", true),
        ("Documents/link", "../..", false),
        ("Documents/a/link", "../../../outside", false),
        ("Documents/link", "/etc/passwd", false),
        ("Documents/link", "", false),
        ("Documents/link", "../.ubiq/versions/x", false),
        ("Documents/link", "a/../../../x", false),
        ("top", "x//y", true),
    ])
    func containment(link: String, target: String, contained: Bool) {
        #expect(SymlinkPolicy.isContained(linkPath: path(link), target: target) == contained)
    }
}
