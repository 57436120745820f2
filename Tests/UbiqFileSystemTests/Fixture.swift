import Foundation
import Logging
import UbiqFileSystem
import UbiqModel
import UbiqTestSupport

/// A created container in a temp folder, with helpers to make files in it.
final class ContainerFixture {
    let directory: TempDirectory
    let layout: ContainerLayout
    let logger = Logger(label: "test")

    init() throws {
        directory = try TempDirectory(prefix: "ubiq-fs")
        layout = ContainerLayout(root: directory.appending("container"))
        try layout.create()
    }

    func absolute(_ relative: String) -> String { layout.root + "/" + relative }

    func write(_ relative: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws {
        let path = absolute(relative)
        let parent = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
    }

    func write(_ relative: String, _ text: String) throws { try write(relative, Array(text.utf8)) }

    func read(_ relative: String) -> [UInt8]? {
        FileManager.default.contents(atPath: absolute(relative)).map { Array($0) }
    }

    func mkdir(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: absolute(relative), withIntermediateDirectories: true)
    }

    func symlink(_ relative: String, to target: String) throws {
        guard Glibc.symlink(target, absolute(relative)) == 0 else { throw POSIXError(.init(rawValue: errno)!) }
    }

    func exists(_ relative: String) -> Bool {
        var st = stat()
        return lstat(absolute(relative), &st) == 0
    }

    func lstatOf(_ relative: String) -> stat? {
        var st = stat()
        return lstat(absolute(relative), &st) == 0 ? st : nil
    }

    var scanner: ContainerScanner { ContainerScanner(layout: layout, logger: logger) }
    var fileSystem: SafeFileSystem { SafeFileSystem(layout: layout, logger: logger) }
}

func path(_ raw: String) -> RelativePath { try! RelativePath(raw) }

func testBytes(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
    var state = UInt32(seed) &* 2_654_435_761 | 1
    return (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return UInt8(truncatingIfNeeded: state)
    }
}
