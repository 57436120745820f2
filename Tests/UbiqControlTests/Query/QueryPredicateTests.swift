import Foundation
import Testing
import UbiqControlAPI
import UbiqModel

@Suite struct QueryPredicateTests {
    static let device = DeviceID("AAAAAAAA-BBBBBBBB")

    static func item(_ path: String, kind: ItemKind = .file, deleted: Bool = false) throws -> Item {
        Item(path: try RelativePath(path), kind: kind, deleted: deleted, version: VersionVector([device: 1]), modifiedBy: device)
    }

    @Test func scopesSplitTheContainerAtDocuments() throws {
        let inside = try Self.item("Documents/notes/a.txt"), top = try Self.item("settings.plist")
        let lookalike = try Self.item("Documents2/a.txt"), lowercase = try Self.item("documents/a.txt")
        let documents = QueryPredicate(scope: .documents), data = QueryPredicate(scope: .data), both = QueryPredicate(scope: .both)
        #expect(documents.matches(inside) && !documents.matches(top) && !documents.matches(lookalike) && !documents.matches(lowercase))
        #expect(!data.matches(inside) && data.matches(top) && data.matches(lookalike) && data.matches(lowercase))
        #expect(both.matches(inside) && both.matches(top))
        #expect(documents.root?.rawValue == "Documents")
        #expect(data.root == nil && both.root == nil)
    }

    @Test func onlyPresentFilesAndLinksMatch() throws {
        let predicate = QueryPredicate(scope: .both)
        #expect(predicate.matches(try Self.item("Documents/a.txt")))
        #expect(predicate.matches(try Self.item("Documents/link", kind: .symlink)))
        #expect(!predicate.matches(try Self.item("Documents/folder", kind: .directory)))
        #expect(!predicate.matches(try Self.item("Documents", kind: .directory)))
        #expect(!predicate.matches(try Self.item("Documents/gone.txt", deleted: true)))
    }

    @Test func theGlobMatchesTheLastComponentOnly() throws {
        let predicate = try QueryPredicate(QueryStartParams(container: ContainerID("TEAMID.com.example.notes"), glob: "n*"))
        #expect(predicate.matches(try Self.item("Documents/x/notes.txt")))
        #expect(!predicate.matches(try Self.item("Documents/notes/x.txt")))
        let ignoring = try QueryPredicate(QueryStartParams(container: ContainerID("TEAMID.com.example.notes"), glob: "N*", ignoreCase: true))
        #expect(ignoring.matches(try Self.item("Documents/x/notes.txt")))
        #expect(throws: NameGlobError.self) {
            try QueryPredicate(QueryStartParams(container: ContainerID("TEAMID.com.example.notes"), glob: ""))
        }
    }

    @Test func itemsBecomeQueryItems() throws {
        var item = try Self.item("Documents/deep/report.pdf")
        item.size = 42
        item.mtime = 1_500_000_000_250_000_000
        let entry = QueryItem(item, downloaded: true)
        #expect(entry.name == "report.pdf")
        #expect(entry.size == 42)
        #expect(abs(entry.modified.timeIntervalSince1970 - 1_500_000_000.25) < 1e-6)
        #expect(entry.uploaded == nil && entry.downloadProgress == nil && entry.conflicts == 0)
        #expect(entry.version == "\(item.version)")
        let json = try JSONValue(encoding: entry)
        #expect(json["uploaded"] == nil)
        #expect(json["modified"]?.stringValue == "2017-07-14T02:40:00.250Z")
    }
}
