import Foundation
import Testing
import UbiqFileSystem
import UbiqTestSupport

@Suite struct ContainerLayoutTests {
    @Test func createMakesTheFolders() throws {
        let dir = try TempDirectory()
        let layout = ContainerLayout(root: dir.appending("a/b/container/"))
        #expect(layout.root == dir.appending("a/b/container"))
        try layout.create()
        try layout.create()
        for folder in [layout.documents, layout.agentFolder, layout.temporaryFolder, layout.versionsFolder] {
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue)
        }
        var st = stat()
        #expect(lstat(layout.agentFolder, &st) == 0 && st.st_mode & 0o777 == 0o700)
    }

    @Test func refusesALinkedAgentFolder() throws {
        let dir = try TempDirectory()
        let layout = ContainerLayout(root: dir.appending("c"))
        try FileManager.default.createDirectory(atPath: layout.root, withIntermediateDirectories: true)
        #expect(symlink("/tmp", layout.agentFolder) == 0)
        do {
            try layout.create()
            Issue.record("accepted a symbolic link as .ubiq")
        } catch {
            #expect(error.code == .escapesContainer)
        }
    }
}
