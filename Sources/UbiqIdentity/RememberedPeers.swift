/// Where the inviting device syncs, as a join by code learnt it (`state/remembered-peers`,
/// one `host:port` a line): the agent dials these as it dials `peers` from the config, so a
/// workstation that joined without mDNS finds its inviter at once. A sign-out forgets them.
public struct RememberedPeers: Sendable {
    public let state: StateDirectory

    public init(state: StateDirectory) {
        self.state = state
    }

    var path: String { state.path + "/remembered-peers" }

    /// The addresses remembered, as written; none when there is no file.
    public func load() -> [String] {
        guard let bytes = try? PrivateFiles.readFile(path) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { String($0) }.filter { !$0.isEmpty }
    }

    /// Adds `addresses` to those remembered.
    public func remember(_ addresses: [String]) throws {
        let known = load()
        let added = addresses.filter { !known.contains($0) }
        guard !added.isEmpty else { return }
        try state.create()
        try PrivateFiles.writeFile(Array((known + added).map { $0 + "\n" }.joined().utf8), to: path)
    }

    func forget() throws {
        if PrivateFiles.exists(path) { try PrivateFiles.remove(path) }
    }
}
