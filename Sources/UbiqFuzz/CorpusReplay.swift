import Foundation

/// Runs a target over saved inputs: files, or every file in a folder (not recursing).
/// This is what `ubiq-fuzz TARGET PATH…` does in an ordinary build, and what the tests do
/// with the committed corpus; a crash of the process is the failure.
public enum CorpusReplay {
    /// The files `paths` name, folders expanded, sorted within each folder; hidden files skipped.
    public static func files(_ paths: [String]) throws -> [String] {
        var result: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
            }
            guard isDirectory.boolValue else {
                result.append(path)
                continue
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted()
            for name in names {
                var isFolder: ObjCBool = false
                let file = (path as NSString).appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), !isFolder.boolValue {
                    result.append(file)
                }
            }
        }
        return result
    }

    /// Runs `target` over each file; returns how many ran.
    @discardableResult
    public static func run(_ target: FuzzTarget, paths: [String]) throws -> Int {
        let files = try files(paths)
        for file in files {
            target.run(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        }
        return files.count
    }

    /// Writes each target's seeds to `root/<target name>/`, replacing files of the same name.
    public static func writeSeeds(to root: String, targets: [FuzzTarget] = FuzzTarget.all) throws {
        for target in targets {
            let folder = URL(fileURLWithPath: root).appendingPathComponent(target.name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for seed in try target.seeds() {
                try Data(seed.bytes).write(to: folder.appendingPathComponent(seed.name))
            }
        }
    }
}
