import UbiqModel
import UbiqTestSupport

/// The agitator's record of what clients did: the write log that judges the end state
/// (``WriteLog``), and the documents clients deleted, to find a deletion the engine undid.
struct ClientLog {
    /// A document a client deleted (or moved away).
    struct Deletion {
        var version: WrittenVersion
        var device: Int
        var step: Int
        var label: String
    }

    private(set) var writes = WriteLog()
    /// The steps at which each version was written.
    private var writtenAt: [WrittenVersion: [Int]] = [:]
    /// The devices whose renames or folder moves made each version where it is: two of them
    /// for one version are two moves of one folder made apart, two versions of the path.
    private var movedBy: [WrittenVersion: Set<Int>] = [:]
    private var deletions: [Deletion] = []

    /// Records `version` written at agitation step `step`; `replacing` is what the writer saw.
    mutating func wrote(_ version: WrittenVersion, step: Int, label: String, replacing: WrittenVersion? = nil) {
        writes.wrote(version, step: label, replacing: replacing)
        writtenAt[version, default: []].append(step)
    }

    /// Records a client's change of `device`'s documents (``Documents``) from `before` to
    /// `after`: each it replaced or removed is superseded, each it wrote is new. With
    /// `deleting`, documents that went are deletions to be kept (a crash's revert is none).
    mutating func changed(from before: [RelativePath: String], to after: [RelativePath: String], device: Int, step: Int, label: String,
                          deleting: Bool = true) {
        for path in Set(before.keys).union(after.keys).sorted() where before[path] != after[path] {
            if let old = before[path] {
                let version = WrittenVersion(path: path.rawValue, hash: old)
                writes.removed(version)
                if after[path] == nil, deleting { deletions.append(Deletion(version: version, device: device, step: step, label: label)) }
            }
            if let new = after[path] {
                let version = WrittenVersion(path: path.rawValue, hash: new)
                wrote(version, step: step, label: label)
                movedBy[version, default: []].insert(device)
            }
        }
    }

    /// A person restored the files of `device`'s held deletions at `paths`: coming back is
    /// what they asked for.
    mutating func restored(_ paths: [RelativePath], on device: Int) {
        let restored = Set(paths.map(\.rawValue))
        deletions.removeAll { $0.device == device && restored.contains($0.version.path) }
    }

    /// Deletions the settled `state` undid: a deleted version current again, though no client
    /// wrote it again since and no client of another device changed its path (or a folder
    /// above it) since it was written, which could have made a change that beats the deletion;
    /// nor had another device moved it there apart (its own version of the path).
    func undone(in state: SettledState, touches: ClientTouches, excused: Set<RelativePath>) -> [String] {
        deletions.compactMap { deletion in
            let version = deletion.version
            guard let path = try? RelativePath(version.path), !excused.contains(where: { path.isInside($0) }),
                  let current = state.tree[version.path], current.prefix(while: { $0 != "+" && $0 != " " }) == version.hash else { return nil }
            let steps = writtenAt[version] ?? []
            guard !steps.contains(where: { $0 > deletion.step }) else { return nil }
            let written = steps.filter { $0 <= deletion.step }.max() ?? 0
            guard !touches.touched(path, on: deletion.device, elsewhere: true, after: written) else { return nil }
            // Moved here by another device as well, apart: its version of the path is its own,
            // which the deletion never saw, and a modification beats a deletion.
            if let movers = movedBy[version], movers.count > 1, movers.contains(where: { $0 != deletion.device }) { return nil }
            return "undone: \(version), deleted by \(deletion.label), is current again, and no other device changed it"
        }
    }
}
