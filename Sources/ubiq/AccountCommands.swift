import ArgumentParser
import Foundation
import UbiqClient
import UbiqConfig
import UbiqControlAPI
import UbiqIdentity
import UbiqModel
import UbiqTransport

/// `ubiq account ...`: the account and this device's identity. `create`, `join` and
/// `leave` go through the running agent when one answers (signing in and out without a
/// restart), and work on the state folder when none does.
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Create, export, join or show the account.",
        subcommands: [Create.self, Export.self, Join.self, Show.self, Leave.self, Rotate.self]
    )
}

/// The `--state DIR` option every account command takes.
struct StateDirectoryOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The agent's state directory.", valueName: "dir"))
    var state: String?

    var store: IdentityStore {
        let path = state ?? DefaultPaths(environment: ProcessInfo.processInfo.environment).stateDirectory
        return IdentityStore(state: StateDirectory(path: path))
    }

    /// The running agent to sign in or out through: the one at `--socket`, or the default
    /// one when no `--state` names another state folder; nil when none answers.
    func runningAgent(_ connection: ConnectionOptions) async -> UbiqAgentClient? {
        guard connection.socket != nil || state == nil else { return nil }
        return try? await UbiqAgentClient.connect(socketPath: connection.socketPath)
    }
}

extension AccountCommand {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a new account with this workstation as its first device.")

        @OptionGroup var options: StateDirectoryOption
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "This device's name (default: the host name).")
        var name: String?

        func run() async throws {
            if let agent = await options.runningAgent(connection) {
                let identity = try await AccountCommand.throughAgent(agent) { try await $0.createAccount(name: name) }
                print("Created a new account; the agent syncs with it now.")
                return print(AccountSummary(identity).humanReadable)
            }
            let identity = try options.store.createAccount(deviceName: name)
            print("Created a new account in \(options.store.state.path).")
            print(AccountSummary(identity).humanReadable)
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write the account bundle that lets another workstation join.")

        @OptionGroup var options: StateDirectoryOption
        @Option(name: .long, help: ArgumentHelp("Where to write the bundle (mode 0600).", valueName: "file"))
        var out: String
        @Flag(help: "Replace the file if it exists.")
        var force = false

        func run() async throws {
            do {
                try options.store.exportBundle(to: out, overwrite: force)
            } catch let error as IdentityError where error.code == .fileExists {
                throw IdentityError(.fileExists, "\(out) already exists; choose another path or pass --force to replace it.")
            }
            print("Wrote the account bundle to \(out).")
            print("It holds the account's private key: copy it only to your own workstation, run")
            print("`ubiq account join \(out)` there, then delete it.")
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join an account: with a code from `ubiq device invite` on a member, or a bundle from `ubiq account export`.",
            discussion: """
                Examples:
                  ubiq account join --code K7Q2WX-M4PDJA-R5TB3C-HV6E2N                   found over mDNS
                  ubiq account join --code K7Q2WX-M4PDJA-R5TB3C-HV6E2N --peer desk:22101  discovery off
                  ubiq account join ~/ubiq-account.bundle                                a bundle file
                Then start `ubiqd` here: it finds the inviting device by itself.
                """)

        @Argument(help: ArgumentHelp("The account bundle (instead of --code).", valueName: "bundle"))
        var bundle: String?
        @Option(help: "The code `ubiq device invite` printed on a member device.")
        var code: String?
        @Option(help: ArgumentHelp("The inviting device's join address, as `ubiq device invite` printed it (default: found over mDNS).", valueName: "host:port"))
        var peer: String?
        @OptionGroup var options: StateDirectoryOption
        @OptionGroup var connection: ConnectionOptions
        @Option(help: "This device's name (default: the host name).")
        var name: String?

        func run() async throws {
            let handed = try await bundleText()
            // Before the sign-in, whose session dials them: the inviter found without mDNS.
            try RememberedPeers(state: options.store.state).remember(handed.inviterAddresses)
            if let agent = await options.runningAgent(connection) {
                let identity = try await AccountCommand.throughAgent(agent) {
                    try await $0.joinAccount(bundle: handed.bundle, name: name, deviceKey: handed.deviceKeyPEM)
                }
                print("Joined the account; the agent syncs with it now.")
                return print(AccountSummary(identity).humanReadable)
            }
            let identity = try options.store.join(bundleText: handed.bundle, deviceName: name, deviceKeyPEM: handed.deviceKeyPEM)
            print("Joined the account in \(options.store.state.path).")
            print(AccountSummary(identity).humanReadable)
            print("Start ubiqd here now\(handed.inviterAddresses.isEmpty ? "" : "; it dials the inviting device at \(handed.inviterAddresses.joined(separator: ", "))").")
        }

        /// The account bundle: read from the file, or handed over by the inviting device for
        /// the code, with the key it saw and where it syncs.
        private func bundleText() async throws -> (bundle: String, deviceKeyPEM: String?, inviterAddresses: [String]) {
            switch (bundle, code) {
            case (let path?, nil):
                FileHandle.standardError.write(Data("ubiq: the bundle holds the account's private key; delete it once joined (`ubiq device invite` needs no file)\n".utf8))
                guard let bytes = FileManager.default.contents(atPath: path), let text = String(bytes: bytes, encoding: .utf8) else {
                    throw IdentityError(.invalidBundle, "There is no readable account bundle at \(path).")
                }
                return (text, nil, [])
            case (nil, let code?):
                let parsed = try JoinCode(parsing: code)
                let (hosts, port) = try await inviter(for: parsed)
                var lastError = JoinError("no address to try")
                // Another address only where one did not answer: a refusal counts against the code.
                for host in hosts {
                    do {
                        let joined = try await JoinClient.join(host: host, port: port, code: parsed, name: name ?? IdentityStore.defaultDeviceName)
                        return (joined.bundle, joined.deviceKeyPEM, joined.inviterAddresses)
                    } catch let error as JoinError where error.unreachable {
                        lastError = error
                    } catch let error as JoinError {
                        lastError = error
                        break
                    }
                }
                FileHandle.standardError.write(Data("ubiq: \(lastError.reason)\n".utf8))
                throw ExitCode.failure
            default:
                throw ValidationError("give either a bundle file or --code")
            }
        }

        /// The inviting device: `--peer`, else found over mDNS by the code's hint.
        private func inviter(for code: JoinCode) async throws -> (hosts: [String], port: Int) {
            guard let peer else { return try await InviterSearch.find(hint: code.hint) }
            do {
                let address = try HostPort(peer)
                return ([address.host], address.port)
            } catch {
                throw ValidationError("--peer: \(error); it names the inviting device's join address, as `ubiq device invite` printed it")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the account's identity token and this device.")

        @OptionGroup var options: StateDirectoryOption
        @Flag(help: "Print JSON for scripts.")
        var json = false

        func run() async throws {
            guard let identity = try options.store.load() else {
                throw IdentityError(.noAccount, "There is no account in \(options.store.state.path); run `ubiq account create` or `ubiq account join BUNDLE`.")
            }
            let summary = AccountSummary(identity)
            print(json ? try summary.json() : summary.humanReadable)
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sign this workstation out: delete the account and device keys; a running agent stays up, signed out.")

        @OptionGroup var options: StateDirectoryOption
        @OptionGroup var connection: ConnectionOptions
        @Flag(help: "Leave the containers' folders where they are (no later account syncs them) instead of moving them aside.")
        var keep = false

        func run() async throws {
            if let agent = await options.runningAgent(connection) {
                let result = try await AccountCommand.throughAgent(agent) { try await $0.leaveAccount(keep: keep) }
                print("Signed out of the account \(result.identityToken); the agent stays up, signed out.")
                for moved in result.movedAside { print("Moved \(moved.from) to \(moved.to).") }
                for path in result.kept { print("Left \(path) in place; no other account syncs it.") }
                return
            }
            let token = try? options.store.load()?.identityToken
            try options.store.leave()
            print("Removed the account\(token.map { " \($0)" } ?? "") and this device's identity from \(options.store.state.path).")
        }
    }
}

extension AccountCommand {
    /// Runs `body` against the agent and closes the connection; an agent's refusal is
    /// printed and ends the command.
    static func throughAgent<T: Sendable>(_ agent: UbiqAgentClient, _ body: (UbiqAgentClient) async throws -> T) async throws -> T {
        do {
            let result = try await body(agent)
            await agent.close()
            return result
        } catch {
            await agent.close()
            Terminal.printError(error)
            throw ExitCode.failure
        }
    }
}

/// What `ubiq account show` reports, in both of its forms.
struct AccountSummary: Encodable {
    let identityToken: String
    let deviceID: String
    let deviceName: String
    let accountTag: String

    init(_ identity: DeviceIdentity) {
        identityToken = identity.identityToken
        deviceID = identity.deviceID.rawValue
        deviceName = identity.deviceName
        accountTag = identity.accountTag
    }

    /// As a running agent answers after a sign-in.
    init(_ identity: AccountIdentity) {
        identityToken = identity.identityToken ?? ""
        deviceID = identity.deviceID.rawValue
        deviceName = identity.deviceName
        accountTag = KeyDigests.accountTag(identityToken: identityToken)
    }

    var humanReadable: String {
        let rows = [
            ("identity token", identityToken),
            ("account tag", accountTag),
            ("device ID", deviceID),
            ("device name", deviceName),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { key, value in
            "\(key):" + String(repeating: " ", count: width - key.count + 1) + value
        }.joined(separator: "\n")
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

extension AccountCommand {
    /// `ubiq account rotate`: a new account key after a device was removed.
    struct Rotate: AgentCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give the account a new key and every remaining device a new certificate (after `ubiq device remove`).")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run(with agent: UbiqAgentClient) async throws {
            let result = try await agent.rotateAccount()
            if output.json { return Terminal.printJSON(try JSONValue(encoding: result)) }
            Self.describe(result)
        }

        static func describe(_ result: AccountRotateResult) {
            print("Rotated the account's key (generation \(result.generation)): \(result.kept.count) devices keep their place, "
                + "\(result.sentTo.count) of them received it now; the others take it at their next connection.")
            if !result.leftOut.isEmpty {
                print("Left out, as no public key of theirs has reached this device (they must join again): "
                    + result.leftOut.map(\.rawValue).joined(separator: ", "))
            }
        }
    }
}
