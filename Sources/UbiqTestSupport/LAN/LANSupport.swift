import Foundation

/// The absolute paths of the tools that build and enter the LAN.
struct LANTools: Sendable {
    let ip: String
    let unshare: String
    let nsenter: String
    let sh: String

    /// Everything the harness runs, directly or inside the hosts.
    static let required = ["ip", "unshare", "nsenter", "mount", "umount", "sh", "sleep", "dbus-daemon", "avahi-daemon"]

    static func locate() throws -> LANTools {
        let missing = required.filter { CommandRunner.find($0) == nil }
        guard missing.isEmpty else {
            throw LANError(.unsupported, "\(missing.joined(separator: ", ")) not found; run scripts/install-deps.sh "
                + "(Debian packages iproute2, util-linux, mount, dbus, avahi-daemon)")
        }
        return LANTools(ip: CommandRunner.find("ip")!, unshare: CommandRunner.find("unshare")!,
                        nsenter: CommandRunner.find("nsenter")!, sh: CommandRunner.find("sh")!)
    }
}

extension NamespaceLAN {
    private static let support: Result<LANTools, LANError> = Result {
        guard geteuid() == 0 else {
            throw LANError(.unsupported, "needs root to create network and mount namespaces; run the tests as root (CI does)")
        }
        let tools = try LANTools.locate()
        let probe = try CommandRunner.run(tools.unshare, ["--net", "--mount", "--pid", "--fork", "--propagation", "private", "true"],
                                          timeout: .seconds(10))
        guard probe.succeeded else {
            throw LANError(.unsupported, "this kernel or container does not allow new network, mount and PID namespaces "
                + "(unshare: \(probe.stderr.trimmingCharacters(in: .whitespacesAndNewlines))); run on a host or a privileged container")
        }
        return tools
    }.mapError { $0 as? LANError ?? LANError(.unsupported, "\($0)") }

    /// Whether a LAN can be built here; checked once per process.
    public static var isSupported: Bool { unsupportedReason == nil }

    /// Why a LAN cannot be built here, for a test's skip message; nil when it can.
    public static var unsupportedReason: String? {
        if case .failure(let error) = support { return error.message }
        return nil
    }

    /// Throws `LANError.unsupported` saying what is missing.
    public static func checkSupported() throws {
        _ = try tools()
    }

    static func tools() throws -> LANTools {
        try support.get()
    }
}
