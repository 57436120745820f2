import Testing
import UbiqIdentity

/// The join code's form, and proofs that hold only for the same code, role and connection.
@Suite struct JoinCodeTests {
    @Test func aCodeIsReadableAndReadBackAsTyped() throws {
        let code = JoinCode.generate()
        let shown = code.description
        #expect(shown.count == 27 && shown.split(separator: "-").map(\.count) == [6, 6, 6, 6])
        #expect(try JoinCode(parsing: shown) == code)
        #expect(try JoinCode(parsing: " " + shown.lowercased().replacingOccurrences(of: "-", with: " ")) == code)
        #expect(Set((0..<200).map { _ in JoinCode.generate() }).count == 200)
        for bad in ["", "ABCDEF-GHIJKL", String(repeating: "A", count: 25), String(repeating: "1", count: 24), shown + "A"] {
            #expect(throws: IdentityError.self) { try JoinCode(parsing: bad) }
        }
    }

    @Test func aProofHoldsOnlyForItsCodeRoleAndConnection() throws {
        let code = JoinCode.generate(), other = JoinCode.generate()
        let (desk, laptop, relay) = (Array("desk cert".utf8), Array("laptop cert".utf8), Array("relay cert".utf8))
        let binding = JoinCode.binding(inviterCertificate: desk, joinerCertificate: laptop)
        let proof = code.proof(.joiner, binding: binding)
        #expect(code.isValid(proof, .joiner, binding: binding))
        #expect(!code.isValid(proof, .inviter, binding: binding))
        #expect(!other.isValid(proof, .joiner, binding: binding))
        // What a relay that terminates TLS shows each side: other certificates, other bindings.
        #expect(!code.isValid(proof, .joiner, binding: JoinCode.binding(inviterCertificate: desk, joinerCertificate: relay)))
        #expect(!code.isValid(proof, .joiner, binding: JoinCode.binding(inviterCertificate: relay, joinerCertificate: laptop)))
        #expect(JoinCode.binding(inviterCertificate: desk, joinerCertificate: laptop) != JoinCode.binding(inviterCertificate: laptop, joinerCertificate: desk))
        #expect(!code.isValid(Array(proof.dropLast()), .joiner, binding: binding))
    }
}
