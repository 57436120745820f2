import Foundation
import Logging
@testable import UbiqAgent
import UbiqConfig
import UbiqIndex
import UbiqModel
import UbiqSync
import UbiqTestSupport

/// One container's engine on a real folder (`root`, made empty) and a real SQLite index, as
/// the agent builds it, for tests of what the engine does with the disk. Nothing touches the
/// folder before `start()`, so a test may mount a file system there first.
struct RealContainer {
    let directory: TempDirectory
    let root: String
    let id = try! ContainerID("TEAMID.com.example.notes")
    let index: SyncIndex
    let container: ContainerSync

    init(prefix: String) throws {
        directory = try TempDirectory(prefix: prefix)
        root = directory.appending("container")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let logger = Logger(label: "test")
        index = try SyncIndex(path: directory.appending("index.sqlite"))
        container = ContainerSync(id: id, disk: FileSystemDisk(settings: ContainerSettings(id: id, path: root), packages: .none, logger: logger),
                                  index: index, device: DeviceID("AAAA"), logger: logger)
    }

    /// The absolute path of `path` in the container.
    func absolute(_ path: RelativePath) -> String { root + "/" + path.rawValue }
}
