import Foundation
/// The folder where ubiq keeps this workstation's state (DESIGN.md §6). Everything in it is
/// private to the owner: folders 0700, files 0600, every file replaced atomically.
public struct StateDirectory: Sendable, Hashable {
    /// One file of the identity, by its place in the state directory.
    enum File: String, CaseIterable {
        case caCertificate = "account/ca-cert.pem"
        case caKey = "account/ca-key.pem"
        case deviceCertificate = "device/cert.pem"
        case deviceKey = "device/key.pem"
        case deviceName = "device/name"
    }

    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Creates the directory (0700) if it is missing, and any missing folders above it
    /// (such as `~/.local/state`) with the usual permissions.
    public func create() throws {
        let parent = PrivateFiles.parent(of: path)
        if !parent.isEmpty, !PrivateFiles.exists(parent) {
            do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
                throw IdentityError(.fileSystem, "Could not create the folder \(parent): \(error.localizedDescription)")
            }
        }
        try PrivateFiles.makeDirectory(path)
    }

    func path(of file: File) -> String {
        "\(path)/\(file.rawValue)"
    }

    func exists(_ file: File) -> Bool {
        PrivateFiles.exists(path(of: file))
    }

    func read(_ file: File) throws -> String? {
        try PrivateFiles.readFile(path(of: file)).map { String(decoding: $0, as: UTF8.self) }
    }

    func write(_ contents: String, to file: File) throws {
        try create()
        try PrivateFiles.makeDirectory(PrivateFiles.parent(of: path(of: file)))
        try PrivateFiles.writeFile(Array(contents.utf8), to: path(of: file))
    }

    func remove(_ file: File) throws {
        try PrivateFiles.remove(path(of: file))
        PrivateFiles.removeDirectoryIfEmpty(PrivateFiles.parent(of: path(of: file)))
    }
}
