import Foundation
import Testing
import UbiqModel

/// The rule that tells a container's own folder from a disk that is not there: every case of
/// root, marker, memory and index (DESIGN.md §3, "A folder is itself").
@Suite struct FolderCheckTests {
    let expected = FolderMarker(container: "TEAMID.com.example.notes", account: "acct", folder: "")
    let mine = FolderMarker(container: "TEAMID.com.example.notes", account: "acct", folder: "f1")
    let remembered = RememberedFolder(folder: "f1", device: 7, inode: 100)

    func judge(_ probe: FolderProbe, remembered: RememberedFolder?, knows: Bool) -> FolderCheck.Verdict {
        FolderCheck.judge(probe, expected: expected, remembered: remembered, indexKnowsFiles: { knows }, path: "/disk/notes")
    }

    func code(_ verdict: FolderCheck.Verdict) -> FolderUnavailable.Code? {
        if case .unavailable(let reason) = verdict { return reason.code }
        return nil
    }

    @Test func aFirstStartMakesTheFolderAndOnlyAFirstStart() {
        #expect(judge(FolderProbe(root: .missing), remembered: nil, knows: false) == .create)
        #expect(code(judge(FolderProbe(root: .missing), remembered: nil, knows: true)) == .missing)
        #expect(code(judge(FolderProbe(root: .missing), remembered: remembered, knows: false)) == .missing)
    }

    @Test func theRightMarkerIsAvailableAndANewPlaceIsRemembered() {
        let here = FolderProbe(root: .folder(device: 7, inode: 100), marker: .found(mine), hasEntries: false)
        #expect(judge(here, remembered: remembered, knows: true) == .available(writeMarker: false, remember: nil))
        // Copied to a new disk with its marker: the same folder, at new numbers.
        let moved = FolderProbe(root: .folder(device: 9, inode: 5), marker: .found(mine), hasEntries: true)
        #expect(judge(moved, remembered: remembered, knows: true)
                == .available(writeMarker: false, remember: RememberedFolder(folder: "f1", device: 9, inode: 5)))
        // An index that lost its memory (a new state folder) adopts the folder's marker.
        #expect(judge(moved, remembered: nil, knows: false)
                == .available(writeMarker: false, remember: RememberedFolder(folder: "f1", device: 9, inode: 5)))
    }

    @Test func aMissingMarkerIsUnavailableOnceAMarkerWasWritten() {
        let mountPoint = FolderProbe(root: .folder(device: 1, inode: 2), marker: .absent, hasEntries: false)
        let verdict = judge(mountPoint, remembered: remembered, knows: true)
        #expect(code(verdict) == .markerMissing)
        if case .unavailable(let reason) = verdict {
            #expect(reason.reason.contains("another file system") && reason.reason.contains("ubiq container reset TEAMID.com.example.notes"))
        }
        let stripped = FolderProbe(root: .folder(device: 7, inode: 100), marker: .absent, hasEntries: true)
        #expect(code(judge(stripped, remembered: remembered, knows: true)) == .markerMissing)
    }

    @Test func anotherFoldersMarkerIsUnavailable() {
        let copy = FolderMarker(container: mine.container, account: "acct", folder: "f2")
        let other = FolderMarker(container: "TEAMID.com.example.photos", account: "acct", folder: "f1")
        let foreign = FolderMarker(container: mine.container, account: "someone-else", folder: "f1")
        for marker in [copy, other, foreign] {
            let probe = FolderProbe(root: .folder(device: 7, inode: 100), marker: .found(marker), hasEntries: true)
            #expect(code(judge(probe, remembered: remembered, knows: true)) == .foreignMarker, "\(marker)")
        }
    }

    @Test func beforeMarkersAnEmptyFolderWhereTheIndexKnowsFilesIsUnavailable() {
        let empty = FolderProbe(root: .folder(device: 1, inode: 2), marker: .absent, hasEntries: false)
        #expect(code(judge(empty, remembered: nil, knows: true)) == .empty)
        #expect(judge(empty, remembered: nil, knows: false) == .available(writeMarker: true, remember: nil))
        let full = FolderProbe(root: .folder(device: 1, inode: 2), marker: .absent, hasEntries: true)
        #expect(judge(full, remembered: nil, knows: true) == .available(writeMarker: true, remember: nil))
    }

    @Test func whatCannotBeReadIsUnavailable() {
        #expect(code(judge(FolderProbe(root: .unusable("Permission denied")), remembered: remembered, knows: true)) == .unusable)
        let unreadable = FolderProbe(root: .folder(device: 7, inode: 100), marker: .unreadable("Input/output error"), hasEntries: true)
        #expect(code(judge(unreadable, remembered: remembered, knows: true)) == .unusable)
    }

    @Test func aMarkerReadsBackAsWritten() {
        let marker = FolderMarker.new(container: "TEAMID.com.example.notes", account: "acct", random: { 0xABC })
        #expect(marker.folder == "0000000000000abc0000000000000abc")
        #expect(FolderMarker.decoded(marker.encoded()) == marker)
        #expect(FolderMarker.decoded(Data("not json".utf8)) == nil)
    }
}
