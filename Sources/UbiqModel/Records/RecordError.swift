/// A record, transaction or change log broke a rule of record stores; `code` is stable for
/// tests and clients, `reason` says what to change.
public struct RecordError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A store, entity, attribute name or record ID that is not well formed.
        case invalidName
        /// A transaction that cannot be applied as a whole (a record twice, a missing record).
        case invalidTransaction
        /// Over one of ``RecordLimits``.
        case tooLarge
        /// A change log that is not a transaction of its folder's device and store, or whose
        /// clock does not follow what it claims to have seen.
        case invalidLog
        /// The store was deleted (here or by another device) while this was under way.
        case storeDeleted
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
