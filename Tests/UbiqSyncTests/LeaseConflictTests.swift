import Testing
import UbiqModel
@testable import UbiqSync
import UbiqTestSupport

/// Leases of hundreds of paths (the puller's groups) are compared by looking paths up; the
/// answer must be the pairwise rule's for every mix of paths, folders and access.
@Suite struct LeaseConflictTests {
    let notes = try! ContainerID("TEAMID.com.example.notes")
    let photos = try! ContainerID("TEAMID.com.example.photos")
    let paths = ["a", "a/b", "a/b/c.txt", "a/bc", "a/b.txt", "d", "d/e.txt", "a-b"]

    func randomLease(_ rng: inout SplitMix64, id: UInt64) -> FileLeases.Lease {
        let claims = (0..<Int.random(in: 9...14, using: &rng)).map { _ in
            let path = Int.random(in: 0...paths.count, using: &rng)
            return FileLeases.Claim(container: Bool.random(using: &rng) ? notes : photos,
                                    path: path == paths.count ? nil : try! RelativePath(paths[path]),
                                    access: Int.random(in: 0..<4, using: &rng) == 0 ? .write : .read)
        }
        return FileLeases.Lease(id: id, claims: claims, holder: .agent("test"))
    }

    @Test func largeLeasesConflictExactlyWhenSomePairDoes() {
        var rng = SplitMix64(seed: 7)
        for round in 0..<2000 {
            let a = randomLease(&rng, id: 1)
            let b = randomLease(&rng, id: 2)
            let pairwise = a.claims.contains { claim in b.claims.contains { claim.conflicts(with: $0) } }
            #expect(FileLeases.conflict(a, b) == pairwise, "round \(round): \(a.claims) vs \(b.claims)")
        }
    }
}
