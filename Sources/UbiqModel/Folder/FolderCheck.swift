/// What the disk shows at a container's folder, gathered without reading anything but the
/// root's stat, the marker and whether the root holds anything besides `.ubiq/`.
public struct FolderProbe: Sendable, Hashable {
    public enum Root: Sendable, Hashable {
        case missing
        /// Something that is not a folder, or a folder that cannot be looked at: the reason.
        case unusable(String)
        case folder(device: UInt64, inode: UInt64)
    }

    public enum Marker: Sendable, Hashable {
        case absent
        case found(FolderMarker)
        /// The file is there but could not be read, or is not a marker: the reason.
        case unreadable(String)
    }

    public var root: Root
    public var marker: Marker
    /// Whether the root holds anything but `.ubiq/`; looked at only where there is no marker
    /// (true otherwise).
    public var hasEntries: Bool

    public init(root: Root, marker: Marker = .absent, hasEntries: Bool = false) {
        self.root = root
        self.marker = marker
        self.hasEntries = hasEntries
    }
}

/// Why a container is not synced now, and what a person does about it.
public struct FolderUnavailable: Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// No folder at the path.
        case missing
        /// Something else there, or a folder the agent may not look at.
        case unusable
        /// The folder's marker is gone (another file system, an empty mount point, `.ubiq/` removed).
        case markerMissing
        /// The folder holds another container's, account's or folder's marker.
        case foreignMarker
        /// An empty folder where the index knows files, and no marker yet to tell.
        case empty
    }

    public var code: Code
    /// The sentence status shows: what is wrong, and what to do.
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}

/// Whether a container's folder is the one this device synced: the rule at every start and
/// before every scan that could record deletions (DESIGN.md §3, "A folder is itself").
public enum FolderCheck {
    public enum Verdict: Sendable, Hashable {
        /// First use: no folder and nothing known of it, so the agent makes one, with a marker.
        case create
        /// The folder is there and is this one; `writeMarker` where it has none yet (its first
        /// use, or an agent from before markers), `remember` where the index is to learn it.
        case available(writeMarker: Bool, remember: RememberedFolder?)
        case unavailable(FolderUnavailable)
    }

    /// The verdict on `probe` for the container `expected` names (its folder ID unused),
    /// given what the index remembers and whether it knows any file of the container (asked
    /// only where that decides).
    public static func judge(_ probe: FolderProbe, expected: FolderMarker, remembered: RememberedFolder?,
                             indexKnowsFiles: () -> Bool, path: String) -> Verdict {
        let reset = "`ubiq container reset \(expected.container)` syncs the folder as it is now (an empty one is filled from the other devices; nothing is deleted on them)"
        let device: UInt64
        let inode: UInt64
        switch probe.root {
        case .missing:
            if remembered == nil && !indexKnowsFiles() { return .create }
            return .unavailable(FolderUnavailable(.missing, "the folder \(path) is not there (a disk that is not mounted, a share that is not up, a folder renamed); put it back or mount it and syncing resumes by itself, or \(reset)"))
        case .unusable(let why):
            return .unavailable(FolderUnavailable(.unusable, "the folder \(path) cannot be used: \(why); syncing resumes by itself once it can"))
        case .folder(let dev, let ino):
            device = dev
            inode = ino
        }
        switch probe.marker {
        case .unreadable(let why):
            return .unavailable(FolderUnavailable(.unusable, "the marker \(path)/.ubiq/\(FolderMarker.fileName) cannot be read: \(why); syncing resumes by itself once it can, or \(reset)"))
        case .found(let marker):
            guard marker.container == expected.container else {
                return .unavailable(FolderUnavailable(.foreignMarker, "the folder \(path) is the folder of container \(marker.container), not of \(expected.container); point this container at its own folder, or \(reset)"))
            }
            guard expected.account.isEmpty || marker.account.isEmpty || marker.account == expected.account else {
                return .unavailable(FolderUnavailable(.foreignMarker, "the folder \(path) belongs to another account (\(marker.account.prefix(16))); move it away, or \(reset)"))
            }
            if let remembered, remembered.folder != marker.folder {
                return .unavailable(FolderUnavailable(.foreignMarker, "the folder \(path) holds another folder's marker (folder \(marker.folder), this device synced folder \(remembered.folder)): a copy, or another disk; put the right one back, or \(reset)"))
            }
            let now = RememberedFolder(folder: marker.folder, device: device, inode: inode)
            return .available(writeMarker: false, remember: now == remembered ? nil : now)
        case .absent:
            if let remembered {
                let why = remembered.device != device
                    ? "is on another file system than before and has no marker (a disk that is not mounted leaves its empty mount point)"
                    : probe.hasEntries ? "has lost its marker (.ubiq/ removed or replaced)" : "is empty and has lost its marker"
                return .unavailable(FolderUnavailable(.markerMissing, "the folder \(path) \(why); mount the disk or put the folder back and syncing resumes by itself, or \(reset)"))
            }
            if !probe.hasEntries && indexKnowsFiles() {
                return .unavailable(FolderUnavailable(.empty, "the folder \(path) is empty, and this device synced files there before (a disk that is not mounted?); mount it or put the files back and syncing resumes by itself, or \(reset)"))
            }
            return .available(writeMarker: true, remember: nil)
        }
    }
}
