import Foundation
import UbiqControlAPI
import UbiqModel

/// Fixed answers of ``TestHandler``; dates are exact in binary so they survive the
/// millisecond format unchanged.
enum Fixtures {
    static let deviceA = DeviceID("AAAAAAAA-BBBBBBBB-CCCCCCCC-DDDDDDDD")
    static let deviceB = DeviceID("EEEEEEEE-FFFFFFFF-GGGGGGGG-HHHHHHHH")
    static let container = try! ContainerID("TEAM123.com.example.notes")
    static let date = Date(timeIntervalSince1970: 1_700_000_000.5)
    static let conflictID = "EEEEEEEE-2"
    static let store = try! KeyValueStoreID("TEAM123.com.example.game")

    static let peers = [
        PeerStatus(deviceID: deviceB, name: "laptop", address: "198.18.0.2:22000", connected: true, since: date,
                   bytesSent: 1234, bytesReceived: 5_678_901),
        PeerStatus(deviceID: DeviceID("IIIIIIII"), name: "old-desktop", address: "198.18.0.3:22000", connected: false,
                   lastError: "connection refused"),
    ]

    static let status = AgentStatus(
        device: .init(id: deviceA, name: "workstation"),
        identityToken: String(repeating: "ab", count: 32),
        agentVersion: "0.1.0",
        listen: ["0.0.0.0:22000"],
        discovery: "unavailable: avahi-daemon is not running",
        containers: [
            ContainerStatus(id: container, path: "/home/u/Ubiquity/TEAM123.com.example.notes", items: 12, files: 9,
                            directories: 2, symlinks: 1, bytes: 3 << 20, needItems: 1, needBytes: 4096, conflicts: 1,
                            caseConflicts: ["Documents/readme.txt"], scanning: false),
        ],
        peers: peers,
        bytesToFetch: 4096,
        conflicts: 1,
        bytesSent: 1234,
        bytesReceived: 5_678_901)

    static let identity = AccountIdentity(identityToken: nil, deviceID: deviceA, deviceName: "workstation")

    static func items(under path: String?) -> [ItemEntry] {
        let prefix = path.map { $0 + "/" } ?? ""
        return [
            ItemEntry(path: prefix + "Documents", kind: .directory, size: 0, mtime: date, version: "{AAAAAAA:1}", modifiedBy: deviceA),
            ItemEntry(path: prefix + "notes.txt", kind: .file, size: 12345, mtime: date, executable: true,
                      version: "{AAAAAAA:3,EEEEEEE:2}", modifiedBy: deviceB, conflicts: 1, downloaded: false),
            ItemEntry(path: prefix + "link", kind: .symlink, size: 9, mtime: date, symlinkTarget: "notes.txt",
                      version: "{AAAAAAA:1}", modifiedBy: deviceA),
        ]
    }

    static func versions(of path: String) -> VersionsList {
        VersionsList(
            current: VersionEntry(id: "AAAAAAAA-3", size: 12345, mtime: date, modifiedBy: deviceA, version: "{AAAAAAA:3}", current: true),
            conflicts: [VersionEntry(id: conflictID, size: 99, mtime: date.addingTimeInterval(-60), modifiedBy: deviceB,
                                     version: "{EEEEEEE:2}", current: false)])
    }
}
