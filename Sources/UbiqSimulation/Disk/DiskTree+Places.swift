import UbiqModel
import UbiqSync

/// Folder trees outside the container: a staged package in `.ubiq/tmp/` or a package's
/// conflict version in `.ubiq/versions/` is a folder whose entries are kept in the same flat
/// table as `NAME/inner/path`, so one rename moves a whole tree between places.
extension DiskTree {
    /// The name of a link in its place's table.
    static func key(of place: Place) -> String {
        switch place {
        case .tree(let path): path.rawValue
        case .temporary(let name), .version(let name), .history(let name): name
        }
    }

    /// The link `key` in the same table as `place`.
    static func place(_ key: String, like place: Place) -> Place {
        switch place {
        // Valid: a container path's descendants and rebased names are made of valid components.
        case .tree: .tree(try! RelativePath(key))
        case .temporary: .temporary(key)
        case .version: .version(key)
        case .history: .history(key)
        }
    }

    /// Everything below the folder at `place`, in path order (parents before what they hold).
    func descendants(of place: Place) -> [Place] {
        let prefix = Self.key(of: place) + "/"
        let keys: [String] = switch place {
        case .tree(let path): descendants(of: path).map(\.rawValue)
        case .temporary: temporary.keys.filter { $0.hasPrefix(prefix) }
        case .version: versions.keys.filter { $0.hasPrefix(prefix) }
        case .history: history.keys.filter { $0.hasPrefix(prefix) }
        }
        return keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { Self.place($0, like: place) }
    }

    /// `place`, a link inside the tree at `from`, at the same spot inside `to`.
    static func rebase(_ place: Place, from: Place, to: Place) -> Place {
        self.place(key(of: to) + key(of: place).dropFirst(key(of: from).count), like: to)
    }

    /// `rm -r` of whatever is at `place`, deepest entries first.
    mutating func removeTree(_ place: Place) {
        for inner in descendants(of: place).reversed() { detach(inner) }
        detach(place)
    }

    /// `syncfs` for one tree: every file in it keeps its bytes through a crash.
    mutating func syncTree(_ place: Place) {
        for link in [place] + descendants(of: place) {
            if let number = self[link], inodes[number]!.kind == .file { sync(number) }
        }
    }

    /// The bytes of a file inside a package kept in `.ubiq/versions/` or `.ubiq/history/`
    /// (the table of `place`), named `NAME/inner/path`, reached as the real disk opens it:
    /// through folders only, never a link.
    func member(_ key: String, like place: Place) throws(DiskError) -> [UInt8] {
        let name = key.prefix { $0 != "/" }
        guard !name.isEmpty, !name.hasPrefix("."), let member = try? RelativePath(String(decoding: key.utf8.dropFirst(name.utf8.count + 1), as: UTF8.self)) else {
            throw DiskError(.escapesContainer, "bad version member name")
        }
        var folder = String(name)
        for component in [""] + member.components.dropLast().map(String.init) {
            if !component.isEmpty { folder += "/" + component }
            guard let number = self[Self.place(folder, like: place)] else { throw DiskError(.notFound, "kept folder \(folder) is missing") }
            guard inodes[number]!.kind == .folder else { throw DiskError(.io, "kept entry \(folder) is not a folder") }
        }
        guard let number = self[Self.place(folder + "/" + member.name, like: place)] else { throw DiskError(.notFound, "kept file \(key) is missing") }
        guard inodes[number]!.kind == .file else { throw DiskError(.io, "kept entry \(key) is not a file") }
        return inodes[number]!.live
    }

    /// Whether `name` in one of the agent's flat folders is a top-level entry, not a link
    /// inside a tree there.
    static func isTopLevel(_ name: String) -> Bool { !name.contains("/") }
}
