import Foundation

/// What signing out leaves behind, where no later account reads it: the account's index
/// under `previous-accounts/` in the state folder, the containers' folders renamed beside where
/// they were, and in every container folder the account it belongs to (`.ubiq/account`),
/// so that a folder left in place is never synced into another account.
enum SignedOutState {
    /// Moves `index.sqlite` (and its WAL files) to `previous-accounts/<token>-<time>/`; returns the
    /// folder, nil when there was no index.
    static func putIndexAside(stateDirectory: String, token: String) throws -> String? {
        let files = FileManager.default
        let index = stateDirectory + "/index.sqlite"
        guard files.fileExists(atPath: index) else { return nil }
        let folder = stateDirectory + "/previous-accounts/\(token.prefix(16))-\(Int64(Date().timeIntervalSince1970 * 1000))"
        try files.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for suffix in ["", "-wal", "-shm"] where files.fileExists(atPath: index + suffix) {
            try files.moveItem(atPath: index + suffix, toPath: folder + "/index.sqlite" + suffix)
        }
        return folder
    }

    /// Renames a container's folder to `<folder>.signed-out-<time>`; returns the new path,
    /// nil when there was no folder.
    static func moveAside(_ path: String) throws -> String? {
        let files = FileManager.default
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        guard files.fileExists(atPath: trimmed) else { return nil }
        let stamp = ISO8601DateFormatter.string(from: Date(), timeZone: .current, formatOptions: [.withFullDate, .withTime])
        var target = trimmed + ".signed-out-" + stamp
        var attempt = 1
        while files.fileExists(atPath: target) {
            attempt += 1
            target = trimmed + ".signed-out-" + stamp + "-\(attempt)"
        }
        try files.moveItem(atPath: trimmed, toPath: target)
        return target
    }

    /// The account a container's folder belongs to; nil when none is written yet.
    static func owner(ofContainerAt path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path + "/.ubiq/account") else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Binds a container's folder to `token` (its `.ubiq/` exists once the container started).
    static func bind(containerAt path: String, to token: String) throws {
        let file = path + "/.ubiq/account"
        guard owner(ofContainerAt: path) != token else { return }
        let staged = file + ".new"
        guard FileManager.default.createFile(atPath: staged, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: staged])
        }
        guard rename(staged, file) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file]) }
    }
}
