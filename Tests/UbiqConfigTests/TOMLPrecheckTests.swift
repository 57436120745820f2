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

    @Test(arguments: [("la=[\u{85}\u{11}", 1, "U+0085"), ("s = [\n  1,\u{2028}2]\n", 2, "U+2028"), ("a = [\u{2029}]", 1, "U+2029"),
                      ("[agent]\ndevice_name = \u{A0}\"x\"\n", 2, "U+00A0"), ("é = 1\n", 1, "U+00E9"), ("[sync]\nk = 1 \u{1F600}\n", 2, "U+1F600")])
    func characterBeyondASCIIOutsideStringsIsASyntaxError(_ text: String, line: Int, code: String) throws {
        let home = try TestHome()
        let error = try #require(try home.error(file: text))
        #expect(error.code == .syntax)
        #expect(error.line == line)
        #expect(error.reason.contains("character \(code) outside a string or comment"))
    }

    @Test func charactersBeyondASCIIInStringsAndCommentsLoad() throws {
        let home = try TestHome()
        let config = try home.load(file: #"""
            # Schreibtisch \#u{2028} im Büro \#u{85}
            [agent]
            device_name = "Büro\#u{A0}1" # ü
            state = '/tmp/état'
            [sync]
            package_extensions = ["pagès", '''ünote''', """x✓"""] # \#u{2029}
            """#)
        #expect(config.deviceName == "Büro\u{A0}1")
        #expect(config.packageExtensions.contains("ünote"))
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
