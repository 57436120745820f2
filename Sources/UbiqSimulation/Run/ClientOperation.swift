import UbiqModel

/// One thing an application does to a simulated disk, decided before it is done so that a
/// step can draw everything first and then change the disk in one go.
enum ClientOperation: Sendable, CustomStringConvertible {
    case makeFolder(RelativePath)
    /// An editor's atomic save (a new synced file renamed over the path), or a write in place.
    case write(RelativePath, [UInt8], atomically: Bool, fsync: Bool)
    case makeLink(RelativePath, target: String)
    /// `rm -r`.
    case remove(RelativePath)
    case rename(RelativePath, to: RelativePath)

    func apply(to disk: SimulatedDisk) throws {
        switch self {
        case .makeFolder(let path): try disk.clientMakeFolder(path)
        case .write(let path, let bytes, atomically: true, _): try disk.clientSaveAtomically(path, bytes)
        case .write(let path, let bytes, atomically: false, let fsync): try disk.clientWrite(path, bytes, fsync: fsync)
        case .makeLink(let path, let target): try disk.clientMakeSymlink(path, target: target)
        case .remove(let path): try disk.clientRemove(path)
        case .rename(let source, let destination): try disk.clientRename(from: source, to: destination)
        }
    }

    /// Does `operations` in order, stopping at the first one refused.
    static func apply(_ operations: [ClientOperation], to disk: SimulatedDisk) throws {
        for operation in operations { try operation.apply(to: disk) }
    }

    var description: String {
        switch self {
        case .makeFolder(let path): "mkdir \(path)"
        case .write(let path, let bytes, let atomically, _): "\(atomically ? "save" : "write") \(path) (\(bytes.count) B)"
        case .makeLink(let path, let target): "ln -s \(target) \(path)"
        case .remove(let path): "rm -r \(path)"
        case .rename(let source, let destination): "mv \(source) \(destination)"
        }
    }
}
