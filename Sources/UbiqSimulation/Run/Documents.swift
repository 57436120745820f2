import UbiqChunking
import UbiqModel
import UbiqTestSupport

/// A device's tree as the write log judges it: documents, each a file outside packages (by
/// the hash of its bytes) or a whole package (by a digest of everything inside it), so that
/// a package is written, replaced, lost or kept as a conflict version as one.
enum Documents {
    /// Each document of `snapshot` by path, with its content hash.
    static func of(_ snapshot: [RelativePath: SimulatedDisk.Entry], packages: PackageRules) -> [RelativePath: String] {
        var documents: [RelativePath: String] = [:]
        for (path, entry) in snapshot where packages.package(containing: path) == nil {
            if case .file(let bytes, _, _, _) = entry { documents[path] = ChunkHasher.hash(bytes).hex }
        }
        for (path, inside) in SimulatedDisk.packageTrees(in: snapshot, packages: packages) {
            documents[path] = digest(of: inside)
        }
        return documents
    }

    /// What a package holds, whatever its times, modes and attributes: every path inside
    /// with its kind and bytes or link target.
    static func digest(of inside: [RelativePath: SimulatedDisk.Entry]) -> String {
        var text = ""
        for path in inside.keys.sorted(by: { $0.rawValue.utf8.lexicographicallyPrecedes($1.rawValue.utf8) }) {
            let what = switch inside[path]! {
            case .folder: "dir"
            case .file(let bytes, _, _, _): ChunkHasher.hash(bytes).hex
            case .symlink(let target, _): "link:" + target
            }
            text += path.rawValue + "\u{0}" + what + "\n"
        }
        return ChunkHasher.hash(Array(text.utf8)).hex
    }
}
