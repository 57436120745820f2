import UbiqModel

extension ItemKind {
    /// The integer the `item.kind` column and the index's binary blobs store.
    var code: Int {
        switch self {
        case .file: 0
        case .directory: 1
        case .symlink: 2
        case .package: 3
        }
    }

    /// The kind stored as `code`. Any other number is corrupt: read as a file, a folder
    /// or a link would be synced as a file.
    init(code: Int) throws(IndexError) {
        switch code {
        case 0: self = .file
        case 1: self = .directory
        case 2: self = .symlink
        case 3: self = .package
        default: throw IndexError(.corrupt, "unknown item kind \(code)")
        }
    }
}
