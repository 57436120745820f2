import Foundation
import Testing
@testable import UbiqIndex
import UbiqModel

@Suite struct IndexBinaryTests {
    let alpha = DeviceID("AAAA-BBBB")
    let beta = DeviceID("CCCC-DDDD")

    func item() throws -> Item {
        let hash = ChunkHash(bytes: [UInt8](repeating: 5, count: 32))!
        let loser = Item(path: try RelativePath("Documents/é ü.txt"), kind: .file, size: 70_000, mtime: -3,
                         chunks: [ChunkRef(offset: 0, size: 65_536, hash: hash), ChunkRef(offset: 65_536, size: 4464, hash: hash)],
                         version: VersionVector([beta: 2]), modifiedBy: beta)
        return Item(path: try RelativePath("Documents/é ü.txt"), kind: .file, size: 12, mtime: 1_700_000_000_123_456_789,
                    executable: true, chunks: [ChunkRef(offset: 0, size: 12, hash: hash)],
                    version: VersionVector([alpha: 300, beta: 1]), modifiedBy: alpha, conflicts: [ConflictVersion(of: loser)])
    }

    @Test func itemsVersionsAndConflictsRoundTrip() throws {
        let original = try item()
        #expect(try IndexBinary.decodeItem(IndexBinary.encode(original)) == original)
        #expect(try IndexBinary.decodeVersion(IndexBinary.encode(original.version)) == original.version)
        #expect(try IndexBinary.decodeConflicts(IndexBinary.encode(original.conflicts)) == original.conflicts)
        let link = Item(path: try RelativePath("l"), kind: .symlink, symlinkTarget: "../x", version: VersionVector([alpha: 1]), modifiedBy: alpha)
        #expect(try IndexBinary.decodeItem(IndexBinary.encode(link)) == link)
        var gone = link
        gone.deleted = true
        #expect(try IndexBinary.decodeItem(IndexBinary.encode(gone)) == gone)
        #expect(try IndexBinary.decodeVersion(IndexBinary.encode(VersionVector.empty)) == .empty)
    }

    @Test func permissionsRoundTripAndBlobsOfBeforeGetTheExecutableBitsDefaults() throws {
        var original = try item()
        original.permissions = Permissions(mode: 0o600, kind: .file)
        original.conflicts[0].permissions = Permissions(mode: 0o751, kind: .file)
        let decoded = try IndexBinary.decodeItem(IndexBinary.encode(original))
        #expect(decoded == original && decoded.permissions.description == "0600" && decoded.conflicts[0].permissions.description == "0751")
        // Written before permissions travelled: no flag 8 and no permissions after the mtime.
        var old = try item()
        old.conflicts = []
        var bytes = [UInt8](IndexBinary.encode(old))
        let flags = 1 + 1 + Array(old.path.rawValue.utf8).count + 1
        #expect(bytes[flags] & 8 != 0)
        bytes[flags] &= ~8
        // Kind and flags, one byte of size, nine of mtime; then 0755, two bytes of varint.
        let permissions = flags + 1 + 1 + 9
        bytes.removeSubrange(permissions..<(permissions + 2))
        #expect(try IndexBinary.decodeItem(Data(bytes)).permissions.description == "0755")
    }

    /// A change of mtime alone keeps the content's counter; it survives the blob, which
    /// refuses a counter outside the version.
    @Test func aContentCounterRoundTripsAndOneOutsideTheVersionIsRefused() throws {
        var original = try item()
        original.conflicts = []
        var touched = original.changedMetadata(by: beta)
        touched.mtime += 1
        #expect(touched.contentCounter == 300 && touched.version[alpha] == 300)
        let again = touched.changedMetadata(by: alpha)
        #expect(again.contentCounter == 300 && again.version[alpha] == 301)
        #expect(try IndexBinary.decodeItem(IndexBinary.encode(again)) == again)
        var bytes = [UInt8](IndexBinary.encode(again))
        #expect(bytes[bytes.count - 3] == 0xAC && bytes[bytes.count - 2] == 0x02)  // 300 as a varint before the conflict count
        bytes[bytes.count - 3] = 0xAE  // 302
        do {
            _ = try IndexBinary.decodeItem(Data(bytes))
            Issue.record("a content counter past the version was read")
        } catch {
            #expect(error.code == .corrupt && error.reason.contains("content counter"))
        }
    }

    /// Attributes end the blob (flag 32); blobs of before hold none.
    @Test func attributesRoundTripInItemsAndConflictVersions() throws {
        var original = try item()
        original.attributes = try ExtendedAttributes([.init(name: "user.xdg.origin.url", value: Array("https://example.org/".utf8)),
                                                      .init(name: "user.bin", value: [0, 0, 255])])
        original.conflicts[0].attributes = try ExtendedAttributes([.init(name: "user.old", value: [])])
        #expect(try IndexBinary.decodeItem(IndexBinary.encode(original)) == original)
        #expect(try IndexBinary.decodeConflicts(IndexBinary.encode(original.conflicts)) == original.conflicts)
        #expect(try IndexBinary.decodeAttributes(IndexBinary.encode(original.attributes)) == original.attributes)
        var damaged = [UInt8](IndexBinary.encode(original.attributes))
        damaged[3] = UInt8(ascii: "X")  // "user." becomes "uXer."
        do {
            _ = try IndexBinary.decodeAttributes(Data(damaged))
            Issue.record("an attribute outside the user namespace was read")
        } catch {
            #expect(error.code == .corrupt && error.reason.contains("extended attributes"))
        }
    }

    /// Blobs written as JSON by earlier versions are still read.
    @Test func jsonWrittenBeforeIsStillRead() throws {
        let original = try item()
        #expect(try IndexBinary.decodeItem(JSONEncoder().encode(original)) == original)
        #expect(try IndexBinary.decodeVersion(JSONEncoder().encode(original.version)) == original.version)
        #expect(try IndexBinary.decodeConflicts(JSONEncoder().encode(original.conflicts)) == original.conflicts)
    }

    /// Every truncation and a trailing byte are refused as corrupt, never read as something else.
    @Test func damagedBlobsAreRefused() throws {
        let encoded = [UInt8](IndexBinary.encode(try item()))
        for length in 1..<encoded.count {
            #expect(throws: IndexError.self) { try IndexBinary.decodeItem(Data(encoded[0..<length])) }
        }
        #expect(throws: IndexError.self) { try IndexBinary.decodeItem(Data(encoded + [0])) }
        #expect(throws: IndexError.self) { try IndexBinary.decodeVersion(Data([IndexBinary.format, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])) }
    }
}
