/// What `ubiq-todo` cannot do with what it was given, said so its user can fix it.
enum TodoError: Error, CustomStringConvertible {
    case noSuchTask(String)
    case ambiguousTask(String, matches: [String])
    case noContainer
    case severalContainers([String])
    case badName(String, reason: String)

    var description: String {
        switch self {
        case .noSuchTask(let id): "no task \(id); `ubiq-todo ls` lists them"
        case .ambiguousTask(let id, let matches): "\(id) could be any of \(matches.joined(separator: ", ")); give more of the ID"
        case .noContainer: "the agent syncs no container"
        case .severalContainers(let ids): "the agent syncs several containers (\(ids.joined(separator: ", "))); name one with --container ID"
        case .badName(let name, let reason): "'\(name)' cannot name a list: \(reason)"
        }
    }
}
