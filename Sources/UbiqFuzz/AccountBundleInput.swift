import Foundation
@_spi(Testing) import UbiqIdentity

extension FuzzTarget {
    /// A file given to `ubiq account join`: PEM parsing, the certificate and key, and the
    /// checks that they make a usable account. Nothing is written.
    public static let accountBundle = FuzzTarget(
        name: "account-bundle",
        summary: "ubiq account join's bundle: PEM, X.509 and the key, checked",
        testOneInput: { data, size in
            AccountBundleInput.run(UnsafeRawBufferPointer(fuzzInput: data, size))
            return 0
        },
        seeds: { try AccountBundleInput.seeds() })
}

enum AccountBundleInput {
    static func run(_ input: UnsafeRawBufferPointer) {
        guard let text = String(validating: input, as: UTF8.self) else { return }
        guard let account = try? Account(bundleText: text) else { return }
        _ = account.identityToken
        _ = account.accountTag
    }

    /// A fresh account's bundle as exported, and the same with Windows line ends and without
    /// its comments.
    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        let text = try Account.create().bundleText
        let bare = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
        return [
            ("exported.pem", text),
            ("crlf.pem", text.replacingOccurrences(of: "\n", with: "\r\n")),
            ("bare.pem", bare),
        ].map { (name: $0.0, bytes: Array($0.1.utf8)) }
    }
}
