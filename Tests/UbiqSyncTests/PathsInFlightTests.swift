import Testing
import UbiqModel
@testable import UbiqSync

/// A second pull pass must leave alone what the first is applying: the same path, the
/// folders above it, everything below it, and any path that differs from those only in case.
@Suite struct PathsInFlightTests {
    func paths(_ raw: String...) -> [RelativePath] { raw.map { try! RelativePath($0) } }
    func free(_ inFlight: PathsInFlight, _ raw: String) -> Bool { inFlight.isFree(try! RelativePath(raw)) }

    @Test func aTakenPathBlocksItselfItsFoldersAndWhatLiesBelowIt() {
        var inFlight = PathsInFlight()
        #expect(inFlight.isEmpty && free(inFlight, "Documents/a/b.txt"))
        inFlight.take(paths("Documents/a/b"))
        #expect(!free(inFlight, "Documents/a/b"))
        #expect(!free(inFlight, "Documents/a") && !free(inFlight, "Documents"))
        #expect(!free(inFlight, "Documents/a/b/c.txt"))
        #expect(free(inFlight, "Documents/a/bc") && free(inFlight, "Documents/a/c") && free(inFlight, "Other"))
    }

    @Test func pathsCompareCaseFolded() {
        var inFlight = PathsInFlight()
        inFlight.take(paths("Documents/Notes.txt"))
        #expect(!free(inFlight, "Documents/notes.txt") && !free(inFlight, "documents"))
    }

    @Test func releasingFreesOnlyWhatNoOtherTakenPathStillHolds() {
        var inFlight = PathsInFlight()
        inFlight.take(paths("d/a", "d/b", "d/A"))
        inFlight.release(paths("d/a"))
        #expect(!free(inFlight, "d/a"), "d/A still folds to it")
        #expect(!free(inFlight, "d"))
        inFlight.release(paths("d/A", "d/A", "never/taken"))
        #expect(free(inFlight, "d/a") && !free(inFlight, "d"))
        inFlight.release(paths("d/b"))
        #expect(inFlight.isEmpty && free(inFlight, "d") && free(inFlight, "d/b"))
    }

    @Test func takingATakenPathAgainNeedsOneRelease() {
        var inFlight = PathsInFlight()
        inFlight.take(paths("x/y"))
        inFlight.take(paths("x/y"))
        inFlight.release(paths("x/y"))
        #expect(inFlight.isEmpty && free(inFlight, "x"))
    }
}
