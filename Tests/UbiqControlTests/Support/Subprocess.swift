import Foundation

/// Runs a program to completion with `input` on its stdin; returns its status and stdout.
func runProcess(_ arguments: [String], input: String) async throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let stdin = Pipe(), stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    let finished = Gate()
    process.terminationHandler = { _ in finished.open() }
    try process.run()
    // A program may exit before it reads (socat refused as another user): a broken pipe
    // here is its answer, not the test's failure. The non-throwing `write` would trap.
    try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
    try? stdin.fileHandleForWriting.close()
    await finished.wait()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

func programExists(_ name: String) -> Bool {
    ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + name) }
}
