import Testing
import UbiqConfig

/// What toml++ 3.4 would abort on (found by fuzzing: Fuzz/Corpus/config-file/regress-*) is a
/// syntax error with its line; text that only looks like it inside a string, a comment or
/// an array still loads.
struct TOMLPrecheckTests {
    @Test(arguments: [("[\n", 1), ("[agent]\n[\n", 2), ("[[=\n", 1), ("[[[1]]]\n", 1), (" [ \t\r\n", 1), ("[[ {\n", 1),
                      ("[agent]\nlisten = []\n[.x]\n", 3), ("\u{FEFF}[\u{1}", 1)])
    func headerWithoutKeyIsASyntaxError(_ text: String, line: Int) throws {
        let home = try TestHome()
        let error = try #require(try home.error(file: text))
        #expect(error.code == .syntax)
        #expect(error.line == line)
    }

    @Test(arguments: [("s = [}\n", 1), ("s = [\n  1,\n  }]\n", 3), ("s = [{ a = [}] }]\n", 1)])
    func braceWhereAnArrayExpectsAValueIsASyntaxError(_ text: String, line: Int) throws {
        let home = try TestHome()
        let error = try #require(try home.error(file: text))
        #expect(error.code == .syntax)
        #expect(error.line == line)
    }

    @Test(arguments: [("d = 2000-01-01 9\n", 1), ("[x]\nd = [2000-01-01 9]\n", 2), ("a=70id--\u{4}-e~ 9 ", 1), ("d = 2_000-01-01 9,", 1), ("a=70id-=\u{4}-e~ 9 ", 1), ("a=70id-=\u{4}-e~ 9\u{B}", 1), ("d = 2000-01-01 9\u{C}", 1),
                      ("a=8'id--\u{4}-e~ 9 st%=\n[  st", 1), ("s = [\"x\",\n 1'-3-'6-8\" 9 ]", 2)])
    func dateThenOneDigitIsASyntaxError(_ text: String, line: Int) throws {
        let home = try TestHome()
        let error = try #require(try home.error(file: text))
        #expect(error.code == .syntax)
        #expect(error.line == line)
    }

    @Test func bracketsInStringsCommentsAndArraysAreNotHeaders() throws {
        let home = try TestHome()
        let config = try home.load(file: #"""
            [agent]
            device_name = """
            [\
            [[="""
            peers = [
              # [
            ]
            state='/tmp/[2000-01-01 9 ' # [
            socket = "/tmp/\"[.sock"
            listen = [
            "127.0.0.1:0"]
            [sync]
            package_extensions = ["a}", 'b}', # 2000-01-01 9 }
            ]
            [[kvstore]]
            id = "TEAMID.com.example.game"
            """#)
        #expect(config.deviceName == "[[[=")
        #expect(config.peers.isEmpty)
        #expect(config.socketPath == #"/tmp/"[.sock"#)
    }
}
