import NIOCore
import NIOEmbedded
import UbiqControlAPI

extension FuzzTarget {
    /// Bytes a client writes to the control socket: the line decoder, JSON, the JSON-RPC
    /// request, and each method's params as the agent decodes and checks them.
    public static let controlLines = FuzzTarget(
        name: "control-lines",
        summary: "line decoder, JSON, JSON-RPC requests, every method's params",
        testOneInput: { data, size in
            ControlLines.run(UnsafeRawBufferPointer(fuzzInput: data, size))
            return 0
        },
        seeds: { ControlLineSeeds.all() })
}

/// One control connection's input, read as `ConnectionSession` reads it, with the answers
/// the agent would write for the lines it refuses.
enum ControlLines {
    /// Lower than the server's 8 MiB so that the fuzzer reaches the over-long case too.
    static let maximumLineLength = 16 * 1024

    static func run(_ input: UnsafeRawBufferPointer) {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumLineLength)))
        var buffer = channel.allocator.buffer(capacity: input.count)
        buffer.writeBytes(input)
        do {
            try channel.writeInbound(buffer)
            channel.pipeline.fireChannelInactive()
        } catch {
            return
        }
        while let frame = try? channel.readInbound(as: ControlFrame.self) {
            guard case .line(let line) = frame else { continue }
            let bytes = line.readableBytesView
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            _ = RPCServerMessage(line: bytes)
            let request: RPCRequest
            do throws(RPCRequest.Failure) {
                request = try RPCRequest(line: bytes)
            } catch {
                checkRoundTrip(RPCResponse(id: error.id, error: error.error).json)
                continue
            }
            checkRoundTrip(request.json)
            let outcome: RPCResponse.Outcome
            do {
                outcome = .result(try ControlParams.check(method: request.method, params: request.params))
            } catch let error as RPCError {
                outcome = .error(error)
            } catch {
                outcome = .error(.internalError("\(error)"))
            }
            if let id = request.id { checkRoundTrip(RPCResponse(id: id, outcome: outcome).json) }
        }
        _ = try? channel.finish()
    }

    /// What the agent writes must read back as the same value: clients parse it with the same
    /// parser, and a request's text (a method name, a bad path) comes back in error messages.
    static func checkRoundTrip(_ value: JSONValue) {
        let text = value.serializedBytes
        guard let again = try? JSONValue(parsing: text) else {
            fatalError("serialized JSON does not parse: \(String(decoding: text.prefix(200), as: UTF8.self))")
        }
        guard again == value else {
            fatalError("serialized JSON parses to another value: \(String(decoding: text.prefix(200), as: UTF8.self))")
        }
    }
}
