import Testing
import UbiqModel

/// The cases of gitignore(5) ("PATTERN FORMAT" and "EXAMPLES", git-scm.com/docs/gitignore),
/// each as a pattern, a path, whether it is a folder, and whether the path is ignored.
@Suite struct IgnoreRulesTests {
    static func ignored(_ lines: [String], _ path: String, folder: Bool = false) -> Bool {
        IgnoreRules(defaults: false, config: [], file: lines.joined(separator: "\n")).ignoring(try! RelativePath(path), isDirectory: folder) != nil
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let lines: [String]
        let path: String
        let folder: Bool
        let ignored: Bool
        init(_ lines: [String], _ path: String, folder: Bool = false, _ ignored: Bool) {
            (self.lines, self.path, self.folder, self.ignored) = (lines, path, folder, ignored)
        }
        var testDescription: String { "\(lines) \(path)\(folder ? "/" : "") → \(ignored)" }
    }

    static let documented: [Case] = [
        // "A blank line matches no files"; "A line starting with # serves as a comment".
        Case(["", "#a.txt"], "a.txt", false),
        // "Put a backslash in front of the first hash for patterns that begin with a hash."
        Case(["\\#a.txt"], "#a.txt", true),
        // "Trailing spaces are ignored unless they are quoted with backslash."
        Case(["a.txt   "], "a.txt", true),
        Case(["a.txt\\ "], "a.txt ", true),
        Case(["a.txt\\ "], "a.txt", false),
        // "An optional prefix ! which negates the pattern"; "\!important!.txt".
        Case(["*.txt", "!keep.txt"], "keep.txt", false),
        Case(["*.txt", "!keep.txt"], "other.txt", true),
        Case(["\\!important!.txt"], "!important!.txt", true),
        // "If there is a separator at the beginning or middle of the pattern, then the pattern
        // is relative to the directory level of the particular .gitignore file itself.
        // Otherwise the pattern may also match at any level below."
        Case(["*.txt"], "Documents/deep/a.txt", true),
        Case(["*.txt"], "a.txt.bak", false),
        Case(["/*.c"], "cat-file.c", true),
        Case(["/*.c"], "mozilla-sha1/sha1.c", false),
        Case(["doc/frotz/"], "doc/frotz", folder: true, true),
        Case(["doc/frotz/"], "a/doc/frotz", folder: true, false),
        // "If there is a separator at the end of the pattern then the pattern will only match
        // directories": "frotz/" matches frotz and a/frotz that are directories.
        Case(["frotz/"], "frotz", folder: true, true),
        Case(["frotz/"], "a/frotz", folder: true, true),
        Case(["frotz/"], "a/frotz", false),
        Case(["frotz/"], "frotz/inside.txt", true),
        // "An asterisk matches anything except a slash": "foo/*" matches "foo/test.json" and
        // the folder "foo/bar", but not "foo/bar/hello.c" by itself.
        Case(["foo/*"], "foo/test.json", true),
        Case(["foo/*"], "foo/bar", folder: true, true),
        Case(["/a*b"], "ax/yb", false),
        // "? matches any one character except /"; a range matches one character in it.
        Case(["?.c"], "a.c", true),
        Case(["?.c"], "ab.c", false),
        Case(["?.txt"], "é.txt", true),
        Case(["[a-c]x"], "bx", true),
        Case(["[a-c]x"], "dx", false),
        Case(["[!a]x"], "bx", true),
        Case(["[!a]x"], "ax", false),
        Case(["[^a]x"], "ax", false),
        Case(["[[:digit:]]*"], "1abc", true),
        Case(["[[:digit:]]*"], "abc", false),
        Case(["[]]"], "]", true),
        // Two consecutive asterisks: "**/foo" matches foo anywhere; "**/foo/bar" bar directly
        // under foo anywhere; "abc/**" everything inside abc; "a/**/b" zero or more folders.
        Case(["**/foo"], "foo", true),
        Case(["**/foo"], "x/y/foo", true),
        Case(["**/foo/bar"], "foo/bar", true),
        Case(["**/foo/bar"], "x/foo/bar", true),
        Case(["**/foo/bar"], "x/foo/y/bar", false),
        Case(["abc/**"], "abc/x", true),
        Case(["abc/**"], "abc/x/y", true),
        Case(["abc/**"], "abc", folder: true, false),
        Case(["a/**/b"], "a/b", true),
        Case(["a/**/b"], "a/x/b", true),
        Case(["a/**/b"], "a/x/y/b", true),
        Case(["a/**/b"], "a/xb", false),
        // "Other consecutive asterisks are considered regular asterisks."
        Case(["a**b"], "axxb", true),
        Case(["a**b"], "ax/b", false),
        // The example "exclude everything except directory foo/bar".
        Case(["/*", "!/foo", "/foo/*", "!/foo/bar"], "foo/bar", folder: true, false),
        Case(["/*", "!/foo", "/foo/*", "!/foo/bar"], "foo/bar/file.txt", false),
        Case(["/*", "!/foo", "/foo/*", "!/foo/bar"], "foo/baz", true),
        Case(["/*", "!/foo", "/foo/*", "!/foo/bar"], "other", true),
        // "It is not possible to re-include a file if a parent directory of that file is excluded."
        Case(["build/", "!build/keep.txt"], "build/keep.txt", true),
        Case(["node_modules/"], "Documents/app/node_modules/left-pad/index.js", true),
    ]

    @Test(arguments: documented) func gitsDocumentedCases(_ example: Case) {
        #expect(Self.ignored(example.lines, example.path, folder: example.folder) == example.ignored)
    }

    /// A line that is no pattern is reported with its number and left out; it never makes
    /// everything ignored.
    @Test func malformedLinesAreReportedAndLeftOut() {
        let rules = IgnoreRules(defaults: false, config: [], file: "[abc\nok.txt\nfoo\\\n[[:nope:]]\n[z-a]\n!\n")
        #expect(rules.problems.map(\.line) == [1, 3, 4, 5, 6])
        #expect(rules.problems.allSatisfy { $0.source == .file && !$0.reason.isEmpty })
        #expect(rules.patterns.map(\.line) == [2])
        #expect(rules.ignoring(try! RelativePath("ok.txt"), isDirectory: false)?.line == 2)
        #expect(rules.ignoring(try! RelativePath("a"), isDirectory: false) == nil)
        #expect(rules.ignoring(try! RelativePath("[abc"), isDirectory: false) == nil)
    }

    /// The defaults catch editors' temporary files, can be switched off, and `.ubiqignore`
    /// overrides them and the config; `.ubiqignore` itself is never ignored.
    @Test func defaultsConfigAndFileInOrderOfPrecedence() {
        let swap = try! RelativePath("Documents/.notes.txt.swp")
        for temporary in ["Documents/.notes.txt.swp", "a.txt~", ".#a.txt", "Documents/.~lock.report.odt#", ".goutputstream-XYZ12"] {
            #expect(IgnoreRules(defaults: true, config: [], file: nil).ignoring(try! RelativePath(temporary), isDirectory: false)?.source == .defaults)
        }
        #expect(IgnoreRules(defaults: false, config: [], file: nil).ignoring(swap, isDirectory: false) == nil)
        #expect(IgnoreRules(defaults: true, config: [], file: "!*.swp").ignoring(swap, isDirectory: false) == nil)
        let both = IgnoreRules(defaults: false, config: ["*.log"], file: "!debug.log")
        #expect(both.ignoring(try! RelativePath("debug.log"), isDirectory: false) == nil)
        #expect(both.ignoring(try! RelativePath("other.log"), isDirectory: false)?.source == .config)
        #expect(IgnoreRules(defaults: true, config: [], file: "*").ignoring(try! RelativePath(".ubiqignore"), isDirectory: false) == nil)
    }

    /// The line that ignores a path inside an ignored folder is the folder's.
    @Test func theDecidingLineIsReported() {
        let rules = IgnoreRules(defaults: false, config: [], file: "# deps\nnode_modules/\n*.o")
        let line = rules.ignoring(try! RelativePath("app/node_modules/x/y.js"), isDirectory: false)
        #expect(line?.line == 2 && line?.text == "node_modules/" && line?.source == .file)
    }

    /// The literal start and end a pattern is checked for before its wildcards are matched:
    /// where they meet or a name is shorter than both, and patterns with none; through
    /// `ignoringItself` too, which builds the whole path only for an anchored pattern.
    static let literalEdges: [Case] = [
        Case(["a*a"], "a", false), Case(["a*a"], "aa", true), Case(["a*a"], "aba", true), Case(["a*a"], "ab", false),
        Case(["abc"], "abc", true), Case(["abc"], "abcd", false), Case(["abc"], "ab", false),
        Case(["*.swp"], ".swp", true), Case(["*.swp"], "d/x.swp", true), Case(["*.swp"], "x.swpx", false),
        Case([".~lock.*#"], ".~lock.#", true), Case([".~lock.*#"], ".~lock.a.odt#", true), Case([".~lock.*#"], ".~lock.", false),
        Case(["a?c"], "abc", true), Case(["a?c"], "ac", false), Case(["[ab]x"], "bx", true), Case(["*"], "anything", true),
        Case(["**/foo"], "foo", true), Case(["**/foo"], "a/b/foo", true), Case(["**/foo"], "a/b/xfoo", false),
        Case(["docs/*.md"], "docs/a.md", true), Case(["docs/*.md"], "x/docs/a.md", false), Case(["*.md", "!/x/*.md"], "x/a.md", false),
    ]

    @Test(arguments: literalEdges) func literalStartsAndEndsDecideAsTheMatcherWould(_ example: Case) throws {
        let rules = IgnoreRules(defaults: false, config: [], file: example.lines.joined(separator: "\n"))
        let path = try RelativePath(example.path)
        #expect((rules.ignoringItself(path, isDirectory: example.folder) != nil) == example.ignored)
        #expect(Self.ignored(example.lines, example.path, folder: example.folder) == example.ignored)
    }
}
