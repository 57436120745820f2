import Testing
import UbiqModel
@testable import UbiqSync

@Suite struct ItemChangeTests {
    let container = try! ContainerID("TEAMID.com.example.notes")
    let me = DeviceID("ME")

    func file(_ path: String, byte: UInt8, deleted: Bool = false) -> Item {
        let chunk = ChunkRef(offset: 0, size: 10, hash: ChunkHash(bytes: [UInt8](repeating: byte, count: 32))!)
        return Item(path: try! RelativePath(path), kind: .file, deleted: deleted, size: deleted ? 0 : 10, mtime: 1,
                    chunks: deleted ? [] : [chunk], version: VersionVector([me: 1]), modifiedBy: me)
    }

    @Test func aRemovalAndACreationOfTheSameContentAreAMove() {
        let changes = [
            ItemChange(container: container, item: file("Documents/new.txt", byte: 1), previous: nil, origin: .local),
            ItemChange(container: container, item: file("Documents/old.txt", byte: 1, deleted: true),
                       previous: file("Documents/old.txt", byte: 1), origin: .local),
            ItemChange(container: container, item: file("Documents/other.txt", byte: 2, deleted: true),
                       previous: file("Documents/other.txt", byte: 2), origin: .local),
        ]
        let paired = ItemChange.pairMoves(changes)
        #expect(paired[1].movedTo == (try? RelativePath("Documents/new.txt")))
        #expect(paired[0].movedTo == nil && paired[2].movedTo == nil)
    }

    @Test func anEditIsNoCreation() {
        let edit = ItemChange(container: container, item: file("a", byte: 1), previous: file("a", byte: 2), origin: .remote)
        let removal = ItemChange(container: container, item: file("b", byte: 2, deleted: true), previous: file("b", byte: 1), origin: .remote)
        #expect(ItemChange.pairMoves([edit, removal]).allSatisfy { $0.movedTo == nil })
    }
}
