import Foundation
import Testing
import UbiqControlAPI
import UbiqTestSupport

/// `ubiq --version` and `ubiqd --version` print the release and exit 0, as a person checking
/// what is installed expects.
@Suite struct VersionFlagTests {
    @Test(arguments: ["ubiq", "ubiqd"]) func versionPrintsTheRelease(program: String) async throws {
        let result = try await AgentProcess.run(program, ["--version"], killAfter: .seconds(30))
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(program) \(UbiqRelease.version)", "\(result.output)")
    }
}
