import Foundation
import Testing
import UbiqModel

@Suite struct PermissionsTests {
    @Test func onlyThePermissionBitsOfTheKindTravel() {
        // setuid never; setgid and sticky on folders only; nothing on links.
        #expect(Permissions(mode: 0o104_755, kind: .file).bits == 0o755)
        #expect(Permissions(mode: 0o6777, kind: .file).bits == 0o777)
        #expect(Permissions(mode: 0o43_770, kind: .directory).bits == 0o3770)
        #expect(Permissions(mode: 0o120_777, kind: .symlink).bits == 0)
        #expect(Permissions(mode: 0o600, kind: .file).description == "0600")
        #expect(Permissions(mode: 0o2750, kind: .directory).description == "2750")
        #expect(Permissions(octal: "0640", kind: .file) == Permissions(mode: 0o640, kind: .file))
        #expect(Permissions(octal: "9", kind: .file) == nil && Permissions(octal: "", kind: .file) == nil)
    }

    @Test func whatTheExecutableBitAloneSaid() {
        #expect(Permissions.defaults(for: .file).description == "0644")
        #expect(Permissions.defaults(for: .file, executable: true).description == "0755")
        #expect(Permissions.defaults(for: .directory).description == "0755")
        #expect(Permissions(mode: 0o700, kind: .file).executable && !Permissions(mode: 0o611, kind: .file).executable)
    }

    /// A change of permissions alone is a change of the item; an mtime alone is not.
    @Test func permissionsArePartOfTheContent() throws {
        let device = DeviceID("AAAA")
        let open = Item(path: try RelativePath("Documents/key"), kind: .file, size: 3, permissions: Permissions(mode: 0o644, kind: .file),
                        version: VersionVector([device: 1]), modifiedBy: device)
        var closed = open
        closed.permissions = Permissions(mode: 0o600, kind: .file)
        var touched = open
        touched.mtime = 99
        #expect(!open.hasSameContent(as: closed) && open.hasSameContent(as: touched))
    }

    /// Items written as JSON before permissions travelled say only `executable`.
    @Test func jsonOfBeforeIsReadWithTheExecutableBit() throws {
        let json = #"{"path":"Documents/run.sh","kind":"file","deleted":false,"size":0,"mtime":0,"executable":true,"chunks":[],"#
            + #""version":{"counters":{}},"modifiedBy":"AAAA","conflicts":[]}"#
        let version = try JSONEncoder().encode(VersionVector.empty)
        let fixed = json.replacingOccurrences(of: #"{"counters":{}}"#, with: String(decoding: version, as: UTF8.self))
        let item = try JSONDecoder().decode(Item.self, from: Data(fixed.utf8))
        #expect(item.permissions.description == "0755")
        let again = try JSONDecoder().decode(Item.self, from: JSONEncoder().encode(item))
        #expect(again == item)
    }
}

@Suite struct NameBytesTests {
    @Test func bytesThatAreNotUTF8AreShownEscapedAndTheRestAsText() {
        #expect(NameBytes.escaped(Array("bad".utf8) + [0xFF] + Array(".txt".utf8)) == "bad\\xFF.txt")
        #expect(NameBytes.escaped(Array("café\\".utf8)) == "café\\\\", "a backslash is escaped, so nothing is ambiguous")
        #expect(NameBytes.escaped([0xC3]) == "\\xC3", "a character cut short")
        #expect(NameBytes.escaped([0xC0, 0x80]) == "\\xC0\\x80", "an overlong form is not text")
        #expect(NameBytes.escaped([0x0A, 0x41]) == "\nA")
    }
}
