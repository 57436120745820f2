import UbiqControlAPI

/// Whether the agent serves its web page, and where: set by ``WebPageService``, asked by
/// `ui.url`. A call made while the page is still starting waits for it.
actor WebPageState {
    enum State: Sendable {
        case starting
        case off
        case serving(WebPageAddress)
        case failed(String)
    }

    private var state: State
    private var waiters: [CheckedContinuation<State, Never>] = []

    init(enabled: Bool) { state = enabled ? .starting : .off }

    func settle(_ state: State) {
        self.state = state
        for waiter in waiters { waiter.resume(returning: state) }
        waiters = []
    }

    /// The page's address, or why there is none.
    func address() async throws(RPCError) -> WebPageAddress {
        var settled = state
        if case .starting = settled { settled = await withCheckedContinuation { waiters.append($0) } }
        switch settled {
        case .serving(let address): return address
        case .off: throw RPCError(.unavailable, "the web page is off (ui = false in the config file, or --no-ui); turn it on and restart the agent")
        case .failed(let reason): throw RPCError(.unavailable, "the web page is not served: \(reason)")
        case .starting: throw RPCError(.unavailable, "the web page is still starting; try again in a moment")
        }
    }
}
