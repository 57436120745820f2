import UbiqModel

/// Container-relative paths as clients send them: a trailing `/` is allowed, and a path
/// that `RelativePath` refuses is error -32005 naming the field.
public enum ControlPath {
    public static func item(_ raw: String, field: String = "path") throws(RPCError) -> RelativePath {
        guard let path = try itemOrRoot(raw, field: field) else {
            throw RPCError(.invalidPath, "\(field): name an item, not the container root")
        }
        return path
    }

    /// Nil for the container root (`""` or `/`).
    public static func itemOrRoot(_ raw: String, field: String = "path") throws(RPCError) -> RelativePath? {
        let trimmed = raw.hasSuffix("/") ? String(raw.dropLast()) : raw
        if trimmed.isEmpty { return nil }
        do { return try RelativePath(trimmed) } catch { throw RPCError(.invalidPath, "\(field): \(error.reason)") }
    }
}
