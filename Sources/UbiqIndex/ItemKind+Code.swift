import UbiqModel

extension ItemKind {
    var code: Int {
        switch self {
        case .file: 0
        case .directory: 1
        case .symlink: 2
        }
    }

    init(code: Int) {
        switch code {
        case 1: self = .directory
        case 2: self = .symlink
        default: self = .file
        }
    }
}
