import Testing
import UbiqControlAPI

@Suite struct NameGlobTests {
    private func matches(_ pattern: String, _ name: String, ignoreCase: Bool = false) throws -> Bool {
        try NameGlob(pattern, ignoreCase: ignoreCase).matches(name)
    }

    @Test func literalsMatchWholeNames() throws {
        #expect(try matches("note.txt", "note.txt"))
        #expect(try !matches("note.txt", "note.txt~"))
        #expect(try !matches("note", "note.txt"))
        #expect(try !matches("note.txt", "Note.txt"))
    }

    @Test func starMatchesAnyRunIncludingNone() throws {
        #expect(try matches("*", ""))
        #expect(try matches("*", "anything at all"))
        #expect(try matches("*.txt", "note.txt"))
        #expect(try matches("*.txt", ".txt"))
        #expect(try !matches("*.txt", "note.txt.bak"))
        #expect(try matches("x*", "x"))
        #expect(try matches("a*b*c", "abc"))
        #expect(try matches("a*b*c", "a-bb-cbc"))
        #expect(try !matches("a*b*c", "a-bb-cb"))
        #expect(try matches("**report**", "the report, final"))
        #expect(try matches("*a*a*a*a*b", String(repeating: "a", count: 40) + "b"))
        #expect(try !matches("*a*a*a*a*b", String(repeating: "a", count: 40)))
    }

    @Test func questionMarkMatchesExactlyOneCharacter() throws {
        #expect(try matches("draft?.md", "draft1.md"))
        #expect(try !matches("draft?.md", "draft.md"))
        #expect(try !matches("draft?.md", "draft12.md"))
        #expect(try matches("??", "é1"))
        // One character, even when it is several code points.
        #expect(try matches("?", "👩‍👩‍👧"))
        #expect(try matches("*?", "a"))
        #expect(try !matches("*?", ""))
    }

    @Test func backslashMakesTheNextCharacterLiteral() throws {
        #expect(try matches(#"what\?.txt"#, "what?.txt"))
        #expect(try !matches(#"what\?.txt"#, "whats.txt"))
        #expect(try matches(#"\*star"#, "*star"))
        #expect(try !matches(#"\*star"#, "a star"))
        #expect(try matches(#"back\\slash"#, #"back\slash"#))
    }

    @Test func caseCountsUnlessIgnored() throws {
        #expect(try !matches("*.TXT", "note.txt"))
        #expect(try matches("*.TXT", "note.txt", ignoreCase: true))
        #expect(try matches("ÉTÉ*", "été 2026.md", ignoreCase: true))
        #expect(try !matches("ÉTÉ*", "été 2026.md"))
    }

    @Test func canonicallyEquivalentNamesMatchAlike() throws {
        let precomposed = "caf\u{E9}.txt", decomposed = "cafe\u{301}.txt"
        #expect(try matches(precomposed, decomposed))
        #expect(try matches("caf?.txt", decomposed))
    }

    @Test func refusesPatternsItCannotUse() {
        #expect(throws: NameGlobError.self) { try NameGlob("") }
        #expect(throws: NameGlobError.self) { try NameGlob(#"trailing\"#) }
    }
}
