import Testing
import UbiqModel

/// The `user.` extended attributes that travel: the rules every set obeys, wherever it comes
/// from (scanner, index, peer), and that a change of them alone is a change of the item.
@Suite struct ExtendedAttributesTests {
    typealias Attribute = ExtendedAttributes.Attribute

    @Test func aSetIsSortedByNameBytesSoEqualSetsCompareEqual() throws {
        let one = try ExtendedAttributes([.init(name: "user.b", value: [2]), .init(name: "user.a", value: [1])])
        let other = try ExtendedAttributes([.init(name: "user.a", value: [1]), .init(name: "user.b", value: [2])])
        #expect(one == other)
        #expect(one.names == ["user.a", "user.b"])
        #expect(one["user.b"] == [2] && one["user.c"] == nil)
        #expect(one.byteCount == 14)
    }

    @Test(arguments: ["security.selinux", "trusted.x", "system.posix_acl_access", "user.", "user", "", "user.a\u{0}b",
                      "user." + String(repeating: "n", count: 251)])
    func namesOutsideTheUserNamespaceOrTooLongAreRefused(_ name: String) {
        #expect(throws: ModelError.self) { try ExtendedAttributes([.init(name: name, value: [])]) }
    }

    @Test func aNameOf255BytesIsTheLongestAllowed() throws {
        let name = "user." + String(repeating: "n", count: 250)
        #expect(try ExtendedAttributes([.init(name: name, value: [])]).names == [name])
    }

    @Test func aNameTwiceIsRefused() {
        #expect(throws: ModelError(.invalidAttributes, "the extended attribute 'user.a' is named twice")) {
            try ExtendedAttributes([.init(name: "user.a", value: [1]), .init(name: "user.a", value: [2])])
        }
    }

    @Test func aSetPastTheLimitIsRefusedAndOneAtItIsNot() throws {
        let name = "user.big"
        let fits = [UInt8](repeating: 7, count: ExtendedAttributes.limit - name.utf8.count)
        #expect(try ExtendedAttributes([.init(name: name, value: fits)]).byteCount == ExtendedAttributes.limit)
        #expect {
            try ExtendedAttributes([.init(name: name, value: fits + [1])])
        } throws: { ($0 as? ModelError)?.code == .attributesTooLarge }
    }

    @Test func aChangeOfAttributesAloneIsAChangeOfTheItemThatMovesNoBytes() throws {
        let hash = ChunkHash(bytes: [UInt8](repeating: 1, count: 32))!
        let plain = Item(path: try RelativePath("Documents/photo.jpg"), kind: .file, size: 10, mtime: 5,
                         chunks: [ChunkRef(offset: 0, size: 10, hash: hash)], version: VersionVector([DeviceID("A"): 1]),
                         modifiedBy: DeviceID("A"))
        var tagged = plain
        tagged.attributes = try ExtendedAttributes([.init(name: "user.xdg.tags", value: Array("holiday".utf8))])
        #expect(!tagged.hasSameContent(as: plain))
        #expect(!tagged.matchesOnDisk(plain))
        #expect(tagged.chunks == plain.chunks)
        #expect(ConflictVersion(of: tagged).attributes == tagged.attributes)
    }

    @Test func aSymbolicLinkHasNone() throws {
        let attributes = try ExtendedAttributes([.init(name: "user.a", value: [1])])
        let link = Item(path: try RelativePath("Documents/link"), kind: .symlink, attributes: attributes, symlinkTarget: "x",
                        version: VersionVector([DeviceID("A"): 1]), modifiedBy: DeviceID("A"))
        #expect(link.attributes.isEmpty)
    }
}
