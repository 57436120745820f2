import Testing
import UbiqControlAPI
import UbiqModel

@Suite struct QueryResultsTests {
    private let order = QueryOrder(.name)
    private let gone: QueryItem? = nil
    private func item(_ path: String, size: Int64 = 1) -> QueryItem { QueryOrderTests.item(path, size: size) }

    @Test func mergeReportsWhatChangedForTheClient() throws {
        var results = QueryResults([item("Documents/a"), item("Documents/b")])
        let latest: [PathBytes: QueryItem?] = [
            "Documents/c": item("Documents/c"),
            "Documents/a": item("Documents/a", size: 2),
            "Documents/b": gone,
            "Documents/never": gone,
        ]
        let merged = results.merge(latest, query: "q1", order: order)
        let update = try #require(merged)
        #expect(update.query == "q1")
        #expect(update.added.map(\.path) == ["Documents/c"])
        #expect(update.changed == [item("Documents/a", size: 2)])
        #expect(update.removed == ["Documents/b"])
        #expect(results.sorted(order).map(\.path) == ["Documents/a", "Documents/c"])
    }

    /// `café` in NFC and in NFD are two files on Linux: two results, each changed on its own.
    @Test func namesThatDifferOnlyInNormalizationAreTwoResults() throws {
        let composed = "Documents/caf\u{E9}", decomposed = "Documents/cafe\u{301}"
        var results = QueryResults([item(composed), item(decomposed)])
        #expect(results.count == 2)
        let merged = results.merge([PathBytes(decomposed): gone], query: "q1", order: order)
        let update = try #require(merged)
        #expect(update.removed.map { Array($0.utf8) } == [Array(decomposed.utf8)])
        #expect(results.sorted(order).map { Array($0.path.utf8) } == [Array(composed.utf8)])
    }

    @Test func mergingWhatTheClientKnowsSaysNothing() {
        var results = QueryResults([item("Documents/a")])
        let latest: [PathBytes: QueryItem?] = ["Documents/a": item("Documents/a"), "Documents/z": gone]
        #expect(results.merge(latest, query: "q1", order: order) == nil)
    }

    @Test func addedAndChangedComeInTheQueryOrder() throws {
        var results = QueryResults()
        let latest: [PathBytes: QueryItem?] = [
            "Documents/c": item("Documents/c", size: 1), "Documents/a": item("Documents/a", size: 3),
            "Documents/b": item("Documents/b", size: 2),
        ]
        let merged = results.merge(latest, query: "q1", order: QueryOrder(.size, descending: true))
        let update = try #require(merged)
        #expect(update.added.map(\.path) == ["Documents/a", "Documents/b", "Documents/c"])
    }

    @Test func aClientApplyingUpdatesEndsWithTheAgentsResults() throws {
        var agent = QueryResults([item("Documents/a"), item("Documents/b")])
        var client = agent
        let steps: [[PathBytes: QueryItem?]] = [
            ["Documents/c": item("Documents/c")],
            ["Documents/a": gone, "Documents/a2": item("Documents/a2")],
            ["Documents/b": item("Documents/b", size: 9), "Documents/c": gone],
        ]
        for step in steps {
            let merged = agent.merge(step, query: "q1", order: order)
            let update = try #require(merged)
            client.apply(update)
            #expect(client == agent)
        }
        #expect(client.sorted(order).map(\.path) == ["Documents/a2", "Documents/b"])
    }
}
