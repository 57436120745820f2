import NIOCore
import UbiqControlAPI

/// Reads one connection's lines, answers bad ones at once and runs good ones concurrently.
struct ConnectionSession {
    let connection: ControlConnection
    let handler: any ControlHandler
    let drainTimeout: Duration
    let maximumLineLength: Int

    func run(_ inbound: NIOAsyncChannelInboundStream<ControlFrame>) async {
        let inFlight = InFlightRequests()
        var lingering = false
        await withDiscardingTaskGroup { group in
            do {
                for try await frame in inbound {
                    switch frame {
                    case .tooLong:
                        await connection.send(RPCResponse(id: nil, error: RPCError(
                            .messageTooLarge, "a line is longer than \(maximumLineLength) bytes; the connection is closed")))
                        // The decoder drops everything after an over-long line, so from here the
                        // loop only waits for the client to close, for a short while.
                        await connection.closeOutput()
                        lingering = true
                        group.addTask { await connection.close(after: ControlConnection.lingerTime) }
                    case .line(let buffer):
                        let bytes = buffer.readableBytesView
                        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                        do throws(RPCRequest.Failure) {
                            let request = try RPCRequest(line: bytes)
                            inFlight.started()
                            group.addTask {
                                defer { inFlight.finished() }
                                await answer(request)
                            }
                        } catch {
                            await connection.send(RPCResponse(id: error.id, error: error.error))
                        }
                    }
                }
            } catch {
                connection.logger.debug("control connection input failed", metadata: ["error": "\(error)"])
            }
            if !lingering { await inFlight.waitUntilIdle(timeout: drainTimeout) }
            group.cancelAll()
        }
    }

    private func answer(_ request: RPCRequest) async {
        let outcome: RPCResponse.Outcome
        do {
            outcome = .result(try await handler.handle(method: request.method, params: request.params, connection: connection))
        } catch let error as RPCError {
            outcome = .error(error)
        } catch {
            outcome = .error(.internalError(String(describing: error)))
        }
        if case .error(let error) = outcome, error.code == .internalError {
            connection.logger.error("control request failed", metadata: [
                "rpc-method": "\(request.method)", "error": "\(error.message)",
            ])
        }
        guard let id = request.id else { return }
        await connection.send(RPCResponse(id: id, outcome: outcome))
    }
}
