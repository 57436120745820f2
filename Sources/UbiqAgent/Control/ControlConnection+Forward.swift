import UbiqControl
import UbiqControlAPI

extension ControlConnection {
    /// Sends each element of `stream` to this client as a `method` notification, until the
    /// stream ends, a send fails, or the connection closes. A stream that ends on its own
    /// ended because the client fell behind or its source went away (the account's syncing
    /// restarted): `ended` runs, then the client is told, so that it subscribes again.
    func forward<Element: Sendable, Params: Encodable & Sendable>(
        _ stream: AsyncStream<Element>, as method: ControlNotification, ended: (@Sendable () -> Void)? = nil,
        _ params: @escaping @Sendable (Element) -> Params
    ) async {
        let forwarder = Task {
            for await element in stream {
                do {
                    try await notify(method: method.rawValue, params: try JSONValue(encoding: params(element)))
                } catch {
                    return
                }
            }
            ended?()
            await self.tellFellBehind(FellBehindNotice(method: method.rawValue))
        }
        await onClose { forwarder.cancel() }
    }

    /// Tells the client a subscription ended because it read too slowly; nothing when the
    /// subscription was ended on purpose.
    func tellFellBehind(_ notice: FellBehindNotice) async {
        guard !Task.isCancelled, let params = try? JSONValue(encoding: notice) else { return }
        try? await notify(method: ControlNotification.subscriptionFellBehind.rawValue, params: params)
    }
}
