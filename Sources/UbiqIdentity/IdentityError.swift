/// Why an identity operation failed; `code` is stable for tests and callers, `message` says
/// what to do next.
public struct IdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The state directory already holds an account.
        case accountExists
        /// The state directory holds no account.
        case noAccount
        /// The state directory holds only part of an identity, or files that do not fit together.
        case damagedState
        /// An account bundle could not be read or is not a usable account CA.
        case invalidBundle
        /// A certificate or key could not be parsed or does not match.
        case invalidCertificate
        /// A device name is empty, too long or spans lines.
        case invalidDeviceName
        /// A file that would be overwritten already exists.
        case fileExists
        /// Reading or writing a file failed.
        case fileSystem
        /// A join code is not in the printed form.
        case invalidJoinCode
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
