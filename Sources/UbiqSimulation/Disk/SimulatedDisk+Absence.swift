import Synchronization
import UbiqModel
import UbiqSync

/// How a container's disk is not there (issue 40): what the engine finds at its path until
/// it comes back.
public enum DiskAbsence: String, Sendable, CaseIterable {
    /// No folder at the path (a folder renamed, a network share not up).
    case folderGone
    /// An empty folder on another file system (a disk that did not mount).
    case emptyMountPoint
    /// The folder with its files, its marker removed (`.ubiq/` deleted by hand).
    case markerMissing
}

/// The disk while it is away: the disk itself, or its marker alone.
struct AwayDisk: Sendable {
    var disk: DiskTree?
    var marker: FolderMarker?
}

/// A disk that goes away and comes back: the engine must notice, record and announce no
/// deletion of what it no longer sees, write nothing where the disk was, and carry on once
/// it is back.
extension SimulatedDisk {
    /// How the disk is away now; nil while it is there.
    public var absence: DiskAbsence? {
        locked { $0.standIn } ?? away.withLock { $0.marker == nil ? nil : .markerMissing }
    }

    /// The disk goes away: a stand-in without files replaces it (clients cannot write there,
    /// nor can the engine stage anything, `.ubiq/` being missing) or, for `.markerMissing`,
    /// only its marker goes (where it has one).
    public func goAway(_ how: DiskAbsence) {
        guard absence == nil else { return }
        if how == .markerMissing {
            let marker = locked { tree in
                defer { tree.marker = nil }
                return tree.marker
            }
            away.withLock { $0.marker = marker }
            return
        }
        var standIn = DiskTree(packages: packages)
        standIn.standIn = how
        let disk = state.withLock { tree in
            defer { tree = standIn }
            return tree
        }
        away.withLock { $0.disk = disk }
    }

    /// The disk is back as it went. Returns what the engine left where it was meanwhile (a
    /// marker, a folder, a file, a kept version): each one a fault.
    public func comeBack() -> [String] {
        let (disk, marker) = away.withLock { away in
            defer { away = AwayDisk() }
            return (away.disk, away.marker)
        }
        if let marker {
            locked { tree in
                if tree.marker == nil { tree.marker = marker }
            }
            return []
        }
        guard let disk else { return [] }
        let left = state.withLock { tree in
            defer { tree = disk }
            let paths = tree.tree.keys.map(\.rawValue).sorted()
            return paths + (tree.marker.map { _ in [".ubiq/folder"] } ?? [])
                + tree.versions.keys.sorted().map { ".ubiq/versions/\($0)" } + tree.history.keys.sorted().map { ".ubiq/history/\($0)" }
        }
        return left
    }
}

/// The disks brought back, from a step or a timer, and what the engine left where each was
/// while it was away.
final class DiskAbsences: Sendable {
    private let faults = Mutex<[String]>([])

    func bringBack(_ device: SimDevice) {
        let left = device.disk.comeBack()
        faults.withLock { $0 += left.map { "device \(device.number): the engine wrote \($0) where its disk was while it was away" } }
    }

    var all: [String] { faults.withLock { $0 } }
}
