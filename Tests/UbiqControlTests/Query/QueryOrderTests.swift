import Foundation
import Testing
import UbiqControlAPI
import UbiqModel

@Suite struct QueryOrderTests {
    static let device = DeviceID("AAAAAAAA-BBBBBBBB")

    static func item(_ path: String, size: Int64 = 0, modified: TimeInterval = 0) -> QueryItem {
        QueryItem(path: path, kind: .file, size: size, modified: Date(timeIntervalSince1970: modified), version: "{AAAAAAA:1}",
                  modifiedBy: device)
    }

    private let items = [
        item("Documents/file10.txt", size: 30, modified: 3),
        item("Documents/b/File2.txt", size: 10, modified: 1),
        item("Documents/apple.txt", size: 20, modified: 2),
        item("Documents/a/file2.txt", size: 10, modified: 2),
    ]

    @Test func nameSortsLikeAFileManagerWithTiesByPath() {
        let paths = QueryOrder(.name).sorted(items).map(\.path)
        #expect(paths == ["Documents/apple.txt", "Documents/a/file2.txt", "Documents/b/File2.txt", "Documents/file10.txt"])
    }

    @Test func modifiedAndSizeSortWithTiesByPath() {
        #expect(QueryOrder(.modified).sorted(items).map(\.path)
            == ["Documents/b/File2.txt", "Documents/a/file2.txt", "Documents/apple.txt", "Documents/file10.txt"])
        #expect(QueryOrder(.size).sorted(items).map(\.path)
            == ["Documents/a/file2.txt", "Documents/b/File2.txt", "Documents/apple.txt", "Documents/file10.txt"])
    }

    @Test func descendingIsTheExactReverse() {
        for key in QuerySortKey.allCases {
            #expect(QueryOrder(key, descending: true).sorted(items) == QueryOrder(key).sorted(items).reversed())
        }
    }

    @Test func paramsDefaultAndRefuseUnknownWords() throws {
        let minimal = try JSONValue(parsing: #"{"container":"TEAMID.com.example.notes"}"#).decode(QueryStartParams.self)
        #expect(minimal.scope == .documents)
        #expect(minimal.sort == .name)
        #expect(minimal.glob == nil)
        #expect(!minimal.descending && !minimal.ignoreCase)
        let full = try JSONValue(parsing: """
            {"container":"TEAMID.com.example.notes","scope":"both","glob":"*.md","ignoreCase":true,"sort":"size","descending":true}
            """).decode(QueryStartParams.self)
        #expect(full.order == QueryOrder(.size, descending: true))
        #expect(full.scope == .both)
        let unknownScope = try JSONValue(parsing: #"{"container":"TEAMID.com.example.notes","scope":"all"}"#)
        let unknownSort = try JSONValue(parsing: #"{"container":"TEAMID.com.example.notes","sort":"date"}"#)
        for (params, hint) in [(unknownScope, "documents, data or both"), (unknownSort, "name, modified or size")] {
            do throws(RPCError) {
                _ = try RPCParams.decode(QueryStartParams.self, from: params)
                Issue.record("\(params) was accepted")
            } catch {
                #expect(error.code == .invalidParams)
                #expect(error.message.contains(hint))
            }
        }
    }
}
