import Foundation

/// A fresh folder under the system temp folder, removed when the test is done with it.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("ubiq-identity-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func mode(of relativePath: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: "\(path)/\(relativePath)")
        return (attributes[.posixPermissions] as! NSNumber).intValue
    }

    func exists(_ relativePath: String) -> Bool {
        FileManager.default.fileExists(atPath: "\(path)/\(relativePath)")
    }

    func write(_ text: String, to relativePath: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: "\(path)/\(relativePath)"))
    }

    func read(_ relativePath: String) throws -> String {
        try String(contentsOfFile: "\(path)/\(relativePath)", encoding: .utf8)
    }
}
