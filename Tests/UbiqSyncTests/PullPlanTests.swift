import Testing
import UbiqModel
@testable import UbiqSync

@Suite struct PullPlanTests {
    let me = DeviceID("ME")

    func item(_ path: String, kind: ItemKind = .file, size: UInt64 = 10, deleted: Bool = false) -> Item {
        let chunks = kind == .file && !deleted ? [ChunkRef(offset: 0, size: UInt32(size), hash: ChunkHash(bytes: [UInt8](repeating: 1, count: 32))!)] : []
        return Item(path: try! RelativePath(path), kind: kind, deleted: deleted, size: deleted || kind != .file ? 0 : size, mtime: 1,
                    chunks: chunks, version: VersionVector([me: 1]), modifiedBy: me)
    }

    @Test func foldersAndSmallFilesGoTogetherAndEverythingElseAloneInOrder() {
        let order = PullPlan.order([
            item("d", kind: .directory), item("d/a"), item("d/b"), item("d/big", size: 2 << 20), item("d/c"),
            item("gone", deleted: true), item("d/link", kind: .symlink),
        ])
        let steps = PullPlan.steps(order).map { $0.map(\.path.rawValue) }
        #expect(steps.first?.first == "d")
        #expect(steps.last == ["gone"])
        // Every need appears once, folders before files, deletions after.
        #expect(steps.flatMap { $0 }.sorted() == order.map(\.path.rawValue).sorted())
        #expect(steps.contains { Set($0).isSuperset(of: ["d", "d/a", "d/b"]) })
        #expect(steps.contains(["d/big"]) && steps.contains(["d/link"]))
    }

    @Test func groupsHoldAtMostTheWidth() {
        let width = PullPlan.groupSize
        let order = PullPlan.order((0..<(2 * width + 8)).map { item("f\($0)") })
        #expect(PullPlan.steps(order).map(\.count) == [width, width, 8])
    }
}
