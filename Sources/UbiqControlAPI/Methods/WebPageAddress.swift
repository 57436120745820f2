/// The result of `ui.url`: where the agent serves its web page, and the address that opens
/// it with the page's token, which `ubiq ui` prints. Only the control socket's owner can ask.
public struct WebPageAddress: Hashable, Sendable, Codable {
    /// `http://HOST:PORT/?token=…`
    public var url: String
    /// The address listened on, as configured (`ui.listen`), with the port taken.
    public var listen: String

    public init(url: String, listen: String) {
        self.url = url
        self.listen = listen
    }
}
