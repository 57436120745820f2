import UbiqModel

/// Which part of a container a query searches, as iCloud's documents and data scopes.
public enum QueryScope: String, Hashable, Sendable, Codable, CaseIterable {
    /// Items under `Documents/`, the part users see.
    case documents
    /// Everything else in the container.
    case data
    /// The whole container.
    case both

    /// The folder the documents scope covers.
    public static let documentsFolder = "Documents"

    public func contains(_ path: RelativePath) -> Bool {
        let inDocuments = path.rawValue.hasPrefix(Self.documentsFolder + "/")
        return switch self {
        case .documents: inDocuments
        case .data: !inDocuments
        case .both: true
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let scope = QueryScope(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "scope is '\(text)'; use documents, data or both")
        }
        self = scope
    }
}
