import Foundation

/// What a container folder says of itself, in `.ubiq/folder`: which container and account it
/// holds, and a random ID made when the agent first used it. A folder whose marker is missing
/// or names another folder is not the one this device synced (a disk that did not mount
/// leaves an empty mount point), and reading it as "everything was deleted" would empty the
/// other devices (Syncthing's `.stfolder` guards against the same, its issue #10487).
public struct FolderMarker: Sendable, Hashable, Codable {
    /// The marker's file name inside `.ubiq/`.
    public static let fileName = "folder"

    public var container: String
    /// The account's identity token; empty where the engine runs without one (the simulator).
    public var account: String
    /// Random, made once per folder (and again by `ubiq container reset`).
    public var folder: String

    public init(container: String, account: String, folder: String) {
        self.container = container
        self.account = account
        self.folder = folder
    }

    /// A marker with a new folder ID, 128 bits from `random`.
    public static func new(container: String, account: String, random: () -> UInt64) -> FolderMarker {
        let id = (0..<2).map { _ in
            let hex = String(random(), radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
        return FolderMarker(container: container, account: account, folder: id)
    }

    /// The file's bytes: JSON with sorted keys, one line.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return ((try? encoder.encode(self)) ?? Data()) + Data("\n".utf8)
    }

    /// The marker in `data`; nil where it is not one.
    public static func decoded(_ data: Data) -> FolderMarker? {
        try? JSONDecoder().decode(FolderMarker.self, from: data)
    }
}

/// What this device remembers of a container's folder, in its index (which lives in the
/// state folder, so it outlasts a disk that went away): the marker's folder ID and where the
/// folder was (device and inode number of its root).
public struct RememberedFolder: Sendable, Hashable {
    public var folder: String
    public var device: UInt64
    public var inode: UInt64

    public init(folder: String, device: UInt64, inode: UInt64) {
        self.folder = folder
        self.device = device
        self.inode = inode
    }
}
