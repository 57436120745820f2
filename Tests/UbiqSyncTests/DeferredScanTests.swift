import Foundation
import Testing
import UbiqIndex
import UbiqModel
import UbiqSync
import UbiqTestSupport

/// A scan that had to wait for the agent's own write lease (a long apply) runs once that
/// lease is gone: the agent's releases tell no one, so a file written during an apply must
/// not wait for some client's lease, or a full rescan, to be recorded.
struct DeferredScanTests {
    @Test func aScanHeldUpByTheAgentsOwnLeaseRunsAfterIt() async throws {
        let real = try RealContainer(prefix: "ubiq-deferred")
        let (root, id, index, container) = (real.root, real.id, real.index, real.container)
        try FileManager.default.createDirectory(atPath: root + "/Documents", withIntermediateDirectories: true)
        let leases = FileLeases()
        await container.setLeases(leases)
        try await container.start()
        let running = Task { await container.run(retryInterval: .milliseconds(200)) }
        defer { running.cancel() }
        let path = try RelativePath("Documents/report.txt")
        try await waitUntil("the first scan") { try index.item(id, try RelativePath("Documents")) != nil }

        // The agent applies something at the path (its own lease) while a program writes there.
        let claim = FileLeases.Claim(container: id, path: path, access: .write)
        let applying = try #require(await leases.acquire([claim], for: .agent("apply"), timeout: .seconds(5)))
        try Data("written during the apply".utf8).write(to: URL(fileURLWithPath: root + "/" + path.rawValue))
        await container.localChanges([path])
        #expect(try index.item(id, path) == nil, "the scan ran under the agent's write lease")
        await leases.release(applying.id)

        try await waitUntil("the held-up scan to record the file") { try index.item(id, path) != nil }
    }
}
