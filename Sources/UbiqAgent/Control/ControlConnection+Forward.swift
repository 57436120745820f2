import UbiqControl
import UbiqControlAPI

extension ControlConnection {
    /// Sends each element of `stream` to this client as a `method` notification, until the
    /// stream ends, a send fails, or the connection closes.
    func forward<Element: Sendable, Params: Encodable & Sendable>(
        _ stream: AsyncStream<Element>, as method: ControlNotification, _ params: @escaping @Sendable (Element) -> Params
    ) async {
        let forwarder = Task {
            for await element in stream {
                do {
                    try await notify(method: method.rawValue, params: try JSONValue(encoding: params(element)))
                } catch {
                    return
                }
            }
        }
        await onClose { forwarder.cancel() }
    }
}
