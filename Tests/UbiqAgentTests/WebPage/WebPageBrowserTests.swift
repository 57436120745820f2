import Foundation
import Testing
import UbiqControlAPI
import UbiqTestSupport

/// The web page in a real browser against real agents: what a person sees there, and the
/// decisions they make with a click reaching every device.
@Suite(.serialized)
struct WebPageBrowserTests {
    /// Two agents of one account, alpha serving its page on a port fixed for the run (a
    /// restart keeps the page's address).
    static func cluster() async throws -> LiveCluster {
        let cluster = try await LiveCluster(["alpha", "beta"])
        cluster.agents[0].webPagePort = try freeLoopbackPort()
        try await cluster.start()
        try await cluster.waitConnected()
        return cluster
    }

    @Test func thePageListsBothDevicesAndAConflictIsResolvedWithAClick() async throws {
        let cluster = try await Self.cluster()
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let ids = (try await a.status().device.id, try await b.status().device.id)
        let path = "Documents/notes.txt"
        try a.write(path, "shopping\nmilk\neggs\n")
        try await waitForConvergence([a, b], "the first version on beta") { _ in b.read(path) == "shopping\nmilk\neggs\n" }

        try await withBrowserPage(a) { page in
            let alphaRow = try await page.browser.text("#devices tr[data-device=\"\(ids.0)\"]")
            let betaRow = try await page.browser.text("#devices tr[data-device=\"\(ids.1)\"]")
            #expect(alphaRow.contains("alpha") && betaRow.contains("beta"), "rows: \(alphaRow) | \(betaRow)")
            #expect(betaRow.contains("connected") && !betaRow.contains("not connected"), "beta's row: \(betaRow)")
            // This device is not "connected" to itself, and a connected device is seen now.
            #expect(!alphaRow.contains("connected") && alphaRow.contains("this device"), "alpha's row: \(alphaRow)")
            #expect(betaRow.contains("now") && !betaRow.contains("ago"), "beta's row: \(betaRow)")
            try await page.screenshot("web-overview")

            // Made while the page is open: beta edits offline, alpha edits meanwhile.
            try await cluster.makeConflict(path, first: "shopping\nmilk\neggs\nbread\n", second: "shopping\noat milk\neggs\n")
            // Within a second of the agent, without a reload.
            let shown = try await page.browser.element("[data-conflict][data-path=\"\(path)\"]", timeout: .seconds(1))
            let versions = try await a.versions(path)
            let conflictID = try #require(versions.conflicts.first?.id)
            let text = try await page.browser.text(shown)
            #expect(text.contains("bread") && text.contains("oat milk"), "the conflict shows both versions' lines: \(text)")
            try await page.screenshot("web-conflict")

            // "Keep that": the version that is not current wins, on both devices.
            let edits = ["shopping\nmilk\neggs\nbread\n", "shopping\noat milk\neggs\n"]
            let current = try #require(a.read(path))
            let keptText = try #require(edits.first { $0 != current })
            try await page.browser.click("[data-conflict][data-path=\"\(path)\"] button[data-action=\"keep\"][data-version=\"\(conflictID)\"]")
            try await waitUntil("the choice to reach both agents") {
                let (va, vb) = (try await a.versions(path), try await b.versions(path))
                return va.conflicts.isEmpty && vb.conflicts.isEmpty && a.read(path) == keptText && b.read(path) == keptText
            }
            try await waitUntil("the page to show no conflict") {
                try await page.browser.elements("[data-conflict]").isEmpty
            }
        }
    }

    @Test func aDeletedFileIsRestoredFromTheTrashByClicks() async throws {
        let cluster = try await Self.cluster()
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let path = "Documents/plan.txt"
        let text = "the plan, before it was deleted\n"
        try a.write(path, text)
        try a.write("Documents/todo.txt", "first\n")
        try await waitForConvergence([a, b], "the files on beta") { _ in b.read(path) == text }
        try a.write("Documents/todo.txt", "first\nsecond\n")
        try FileManager.default.removeItem(atPath: a.path(path))
        try await waitUntil("the deletion in the trash") {
            let trash = try await a.withClient { try await $0.trash(container: a.container) }
            return b.read(path) == nil && trash.contains { $0.path == path }
        }

        try await withBrowserPage(a) { page in
            try await page.open(container: a.container.rawValue)
            let row = "#trash tr[data-path=\"\(path)\"]"
            _ = try await page.browser.element(row)
            try await page.screenshot("web-history")
            try await page.browser.click("\(row) button[data-action=\"restore\"]")
            try await waitUntil("the file back on both agents") { a.read(path) == text && b.read(path) == text }
            try await waitUntil("the trash on the page to be without it") { try await page.browser.elements(row).isEmpty }
        }
    }

    @Test func thePageComesBackAfterARestartAndAContainerPausedFromItStopsSyncing() async throws {
        let cluster = try await Self.cluster()
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        try await withBrowserPage(a) { page in
            let problemShown = "return !document.querySelector('#problem').hidden"
            a.stop()
            try await waitUntil("the page to say the agent is not reachable") { try await page.browser.execute(problemShown) as? Bool == true }
            try await a.startAndWait()
            try await waitUntil("the page to hear from the agent again") { try await page.browser.execute(problemShown) as? Bool == false }

            let card = "#containers li[data-container=\"\(a.container)\"]"
            try await page.browser.click("\(card) button[data-action=\"pause\"]")
            try await waitUntil("alpha's container to be paused") { try await a.status().containers.first?.paused == true }
            try await waitUntil("the page to say so") { try await page.browser.text("\(card) .state").contains("paused") }
            let path = "Documents/while-paused.txt"
            let text = "written on beta while alpha is paused"
            try b.write(path, text)
            try await waitUntil("alpha to hear of beta's file, and not apply it") {
                let status = try #require(try await a.status().containers.first)
                return status.paused && status.needBytes == Int64(text.utf8.count)
            }
            #expect(a.read(path) == nil)

            try await page.browser.click("\(card) button[data-action=\"resume\"]")
            try await waitUntil("the file on alpha after the resume") { a.read(path) == text }
        }
    }

    @Test func settingsAreChangedAndADeviceIsInvitedAndRemovedFromThePage() async throws {
        let cluster = try await Self.cluster()
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let beta = try await b.status().device.id
        try await withBrowserPage(a) { page in
            try await page.browser.click("#invite")
            var code = ""
            try await waitUntil("the invitation's code on the page") {
                code = try await page.browser.text("#invite-code")
                return code.wholeMatch(of: /[A-Z2-7]{6}(-[A-Z2-7]{6}){3}/) != nil
            }
            // The test agents run without discovery: the command names the join address.
            let command = try await page.browser.text("#invite-command")
            #expect(command.contains("--peer ") && command.contains("start ubiqd there") && !command.contains("THIS-HOST"), "\(command)")

            try await page.browser.type("512", into: try await page.browser.element("#limit-send"))
            try await page.browser.click("#limits-save")
            try await waitUntil("the send limit on the agent") {
                try await a.withClient { try await $0.limits() }.send.limit == 512 * 1024
            }

            try await page.open(container: a.container.rawValue)
            try await page.browser.type("*.o\n", into: try await page.browser.element("#ignore-text"))
            try await page.browser.click("#ignore-save")
            try await waitUntil("the ignore patterns on both agents") { a.read(".ubiqignore") == "*.o\n" && b.read(".ubiqignore") == "*.o\n" }

            try await page.browser.click("#devices tr[data-device=\"\(beta)\"] button[data-action=\"remove-device\"]")
            try await page.browser.click("button[data-action=\"confirm\"]")
            try await waitUntil("beta removed from the account") {
                try await a.withClient { try await $0.devices() }.contains { $0.id == beta && $0.removed }
            }
            try await waitUntil("the page to show it") {
                try await page.browser.text("#devices tr[data-device=\"\(beta)\"]").contains("removed")
            }
        }
    }

    /// Most of a container deleted at once on alpha: the page's banner says so, its "Restore
    /// the files" puts them back, and its "Delete them everywhere" (confirmed) sends them to
    /// beta. Alpha's folder moved away while it runs: its card says unavailable and why, and
    /// syncing again once the folder is back.
    @Test func heldDeletionsAreDecidedFromTheBannerAndAFolderMovedAwayIsShown() async throws {
        let cluster = try await Self.cluster()
        defer { cluster.stopAll() }
        let (a, b) = (cluster.agents[0], cluster.agents[1])
        let count = 150
        for n in 0..<count { try a.write("Documents/many/\(n).txt", "file \(n)") }
        func files(_ agent: AgentProcess) -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: agent.path("Documents/many")).count) ?? 0
        }
        try await waitForConvergence([a, b], "the files on beta") { _ in files(b) == count }
        let away = a.home + "/away"
        func moveOut() throws {
            try? FileManager.default.removeItem(atPath: away)
            #expect(rename(a.path("Documents/many"), away) == 0)
        }

        try await withBrowserPage(a) { page in
            let card = "#containers li[data-container=\"\(a.container)\"]"
            try moveOut()
            try await waitUntil("alpha to hold the deletions") { try await a.status().containers.first?.heldDeletions?.count == count }
            let banner = try await page.browser.element("\(card) .banner")
            let said = try await page.browser.text(banner)
            #expect(said.contains("\(count) files deleted here at once are held"), "\(said)")
            try await page.screenshot("web-held-deletions")
            try await page.browser.click("\(card) button[data-action=\"restore-deletions\"]")
            try await waitUntil("the files back on alpha") { files(a) == count }
            try await waitUntil("the banner gone") { try await page.browser.elements("\(card) .banner").isEmpty }
            #expect(files(b) == count, "beta lost files to a held deletion")

            // Moved out again while the restore's last files may still be in flight: a scan
            // that had to leave those out records a few at once, and the rest are held.
            try moveOut()
            var held = 0
            try await waitUntil("alpha to hold them again") {
                held = try await a.status().containers.first?.heldDeletions?.count ?? 0
                return held > 100
            }
            try await waitUntil("beta to keep every held file") { files(b) == held }
            _ = try await page.browser.element("\(card) .banner")
            try await page.browser.click("\(card) button[data-action=\"confirm-deletions\"]")
            try await page.browser.click("button[data-action=\"confirm\"]")
            try await waitUntil("the deletions on beta") { files(b) == 0 }
            try await waitUntil("the banner gone") { try await page.browser.elements("\(card) .banner").isEmpty }

            try FileManager.default.moveItem(atPath: a.root, toPath: a.root + ".away")
            try await waitUntil("the card to say unavailable, and why") {
                let text = try await page.browser.text(card)
                return text.contains("unavailable") && text.contains("is not there")
            }
            try await page.screenshot("web-unavailable")
            try FileManager.default.moveItem(atPath: a.root + ".away", toPath: a.root)
            try await waitUntil("the card to say up to date again") { try await page.browser.text("\(card) .state").contains("up to date") }
            try a.write("Documents/after.txt", "after the folder came back")
            try await waitUntil("alpha's new file on beta") { b.read("Documents/after.txt") != nil }
        }
    }
}
