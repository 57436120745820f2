import Foundation
import Testing
import UbiqTestSupport

/// The agent's web page open in a headless Chromium, as a person has it: what it shows and
/// the clicks they make. Screenshots go to `UBIQ_WEB_SCREENSHOTS` where that names a folder
/// (docs/images holds the ones the docs show).
struct BrowserPage {
    let browser: WebDriver
    let url: String

    /// Opens `agent`'s page with its token, and waits until it has heard from the agent.
    static func open(_ agent: AgentProcess, width: Int = 1280, height: Int = 900, colorScheme: String = "light") async throws -> BrowserPage {
        let url = try await agent.webPageAddress().url
        let browser = try await WebDriver(width: width, height: height, colorScheme: colorScheme)
        do {
            try await browser.open(url)
            let page = BrowserPage(browser: browser, url: url)
            _ = try await browser.element("#devices tbody tr[data-device]")
            return page
        } catch {
            await browser.quit()
            throw error
        }
    }

    func close() async { await browser.quit() }

    /// Opens a container's details: its files, history and trash.
    func open(container id: String) async throws {
        try await browser.click("#containers li[data-container=\"\(id)\"] button[data-action=\"open\"]")
    }

    /// Saves what the browser shows, the whole page, as `name`.png, where screenshots are wanted.
    func screenshot(_ name: String) async throws {
        guard let folder = ProcessInfo.processInfo.environment["UBIQ_WEB_SCREENSHOTS"], !folder.isEmpty else { return }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try await browser.fullPageScreenshot(to: folder + "/" + name + ".png")
    }
}

/// Runs `body` with the page, closing the browser whatever happens.
func withBrowserPage<T>(_ agent: AgentProcess, width: Int = 1280, height: Int = 900, colorScheme: String = "light",
                        _ body: (BrowserPage) async throws -> T) async throws -> T {
    let page = try await BrowserPage.open(agent, width: width, height: height, colorScheme: colorScheme)
    do {
        let result = try await body(page)
        await page.close()
        return result
    } catch {
        await page.close()
        throw error
    }
}
