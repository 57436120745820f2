import UbiqModel
import UbiqTestSupport
import Testing
import UbiqClient
import UbiqControlAPI

/// Lines that are never a valid request nor a notification, each worth exactly one error.
enum MalformedLines {
    static let fixed: [String] = [
        "[]", "[1,2]", #"[{"jsonrpc":"2.0","id":1,"method":"agent.status"}]"#, "\"text\"", "42", "-1.5e3", "null", "true",
        "{", "}", "{]", #"{"jsonrpc":"2.0""#, #"{"jsonrpc":2.0,"id":1,"method":"agent.status"}"#,
        #"{"jsonrpc":"1.0","id":1,"method":"agent.status"}"#, #"{"id":1,"method":"agent.status"}"#,
        #"{"jsonrpc":"2.0","id":1}"#, #"{"jsonrpc":"2.0","method":5}"#, #"{"jsonrpc":"2.0","id":1,"method":""}"#,
        #"{"jsonrpc":"2.0","id":{},"method":"agent.status"}"#, #"{"jsonrpc":"2.0","id":[1],"method":"agent.status"}"#,
        #"{"jsonrpc":"2.0","id":1.5,"method":"agent.status"}"#, #"{"jsonrpc":"2.0","id":true,"method":"agent.status"}"#,
        #"{"jsonrpc":"2.0","id":null,"method":"agent.status"}"#, #"{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"x","params":7}"#, #"{"jsonrpc":"2.0","id":1e999,"method":"agent.status"}"#,
        #"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"agent.status"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"no.such.method"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"items.list","params":{"container":[]}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"items.list","params":{"container":"bad id"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"versions.resolve","params":{"container":"A.b","path":1,"keep":2}}"#,
        #"{"jsonrpc":"2.0","id":"\ud800","method":"agent.status"}"#, "{\"a\":\"\u{1}\"}", "\u{FEFF}{}",
    ]

    static func make(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        var lines: [[UInt8]] = fixed.map { Array($0.utf8) }
        while lines.count < count {
            switch random.next() % 6 {
            case 0:
                // Garbage bytes, often invalid UTF-8; never a newline, never blank.
                let length = Int(random.next() % 200) + 1
                var bytes: [UInt8] = [0xFF]
                for _ in 0..<length {
                    let byte = UInt8(truncatingIfNeeded: random.next())
                    bytes.append(byte == 0x0A ? 0x41 : byte)
                }
                lines.append(bytes)
            case 1:
                // Invalid UTF-8 inside a string of an otherwise valid request.
                var bytes = Array(#"{"jsonrpc":"2.0","id":1,"method":""#.utf8)
                bytes += [0xC3, 0x28, 0xFF, UInt8(truncatingIfNeeded: random.next() | 0x80)]
                bytes += Array(#""}"#.utf8)
                lines.append(bytes)
            case 2:
                // Huge numbers in the id or as the whole line.
                let digits = String((0..<Int(random.next() % 400 + 20)).map { _ in Character(String(random.next() % 10)) })
                let forms = ["1" + digits, "-1" + digits + ".5", "1e" + digits, #"{"jsonrpc":"2.0","id":9"# + digits + #","method":"x"}"#]
                lines.append(Array(forms[Int(random.next() % 4)].utf8))
            case 3:
                // Deep nesting, closed or not, bare or inside params.
                let depth = Int(random.next() % 20_000) + JSONValue.maximumDepth + 1
                let open = String(repeating: "[", count: depth)
                let close = random.next() % 2 == 0 ? String(repeating: "]", count: depth) : ""
                let text = random.next() % 2 == 0 ? open + close : #"{"jsonrpc":"2.0","id":1,"method":"x","params":"# + open + close + "}"
                lines.append(Array(text.utf8))
            case 4:
                // Non-object JSON values.
                let values = ["[]", "0", "\"\"", "null", "false", "[{}]", "[" + String(random.next()) + "]", "3.25"]
                lines.append(Array(values[Int(random.next() % UInt64(values.count))].utf8))
            default:
                // Valid JSON objects with fields of the wrong type.
                let wrong: [JSONValue] = [1, 1.5, true, nil, [], [:], "x"]
                let pick = { wrong[Int(random.next() % UInt64(wrong.count))] }
                var object: [String: JSONValue] = ["jsonrpc": "2.0", "id": 1, "method": "agent.status"]
                switch random.next() % 3 {
                case 0:
                    let value = pick()
                    object["jsonrpc"] = value == "x" ? "3.0" : value
                case 1:
                    let value = pick()
                    object["method"] = value == "x" ? "" : value
                default: object["id"] = [JSONValue.double(2.5), nil, [:], [], true][Int(random.next() % 5)]
                }
                lines.append(Array(JSONValue.object(object).serialized().utf8))
            }
        }
        return lines
    }
}

@Suite struct MalformedInputTests {
    @Test func everyBadLineGetsAnErrorAndTheConnectionStaysUsable() async throws {
        let lines = MalformedLines.make(count: 1000, seed: 0x5EED)
        #expect(lines.count == 1000)
        #expect(lines.allSatisfy { !$0.contains(0x0A) && !$0.isEmpty })
        // A thousand exchanges took over a minute on this 2-core machine while it built.
        try await withServer(deadline: 300) { context throws in
            let client = try await RawLineClient(socketPath: context.socketPath)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for line in lines { try await client.send(line + [0x0A]) }
                }
                var errors = 0
                while errors < lines.count {
                    let response = try #require(try await client.readJSON())
                    let code = try #require(response["error"]?["code"]?.integerValue, "\(response)")
                    #expect([-32700, -32600, -32601, -32602].contains(code))
                    #expect(response["result"] == nil)
                    errors += 1
                }
                try await group.waitForAll()
            }
            try await client.send(line: #"{"jsonrpc":"2.0","id":"after","method":"account.identity"}"#)
            let response = try #require(try await client.readJSON())
            #expect(response["id"] == "after")
            #expect(try response["result"]?.decode(AccountIdentity.self) == Fixtures.identity)
            await client.close()
        }
    }

    @Test func blankLinesAreIgnored() async throws {
        try await withServer { context throws in
            let client = try await RawLineClient(socketPath: context.socketPath)
            try await client.send(Array("\n\r\n  \t\n".utf8))
            try await client.send(line: #"{"jsonrpc":"2.0","id":1,"method":"test.echo","params":[1]}"#)
            #expect(try await client.readJSON() == ["jsonrpc": "2.0", "id": 1, "result": [1]])
            await client.close()
        }
    }

    @Test func anOverlongLineClosesOnlyThatConnection() async throws {
        try await withServer(configure: { $0.maximumLineLength = 4096 }) { context throws in
            let bystander = try await UbiqAgentClient.connect(socketPath: context.socketPath)
            let offender = try await RawLineClient(socketPath: context.socketPath)
            try await offender.send(Array(repeating: UInt8(ascii: "a"), count: 10_000) + [0x0A])
            let response = try #require(try await offender.readJSON())
            #expect(response["error"]?["code"] == .integer(Int64(RPCError.Code.messageTooLarge.rawValue)))
            #expect(response["id"] == .null)
            #expect(await offender.readLine() == nil)
            await offender.close()

            #expect(try await bystander.identity() == Fixtures.identity)
            let fresh = try await UbiqAgentClient.connect(socketPath: context.socketPath)
            #expect(try await fresh.peers() == Fixtures.peers)
            await fresh.close()
            await bystander.close()
        }
    }
}
