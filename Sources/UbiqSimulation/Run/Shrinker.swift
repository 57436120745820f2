/// Makes a failing run's schedule short: first the fewest steps of the seed that still fail
/// (a run of fewer steps does the same first steps), then steps left out, in halves, then
/// quarters, down to single steps, as long as the run still fails (after Zeller's delta
/// debugging, "Simplifying and Isolating Failure-Inducing Input", TSE 2002). Every try is a
/// whole deterministic run, so the result replays with its seed, steps and skipped steps.
public struct Shrinker {
    /// Runs one schedule; true when it fails.
    let fails: (_ steps: Int, _ skipping: Set<Int>) throws -> Bool
    /// Tries at most this many runs.
    let budget: Int

    public init(budget: Int = 400, fails: @escaping (_ steps: Int, _ skipping: Set<Int>) throws -> Bool) {
        self.budget = budget
        self.fails = fails
    }

    /// The shortest failing schedule found from `steps` that fail: (steps, skipped steps).
    public func shrink(steps: Int) throws -> (steps: Int, skipping: Set<Int>) {
        var tries = 0
        func attempt(_ steps: Int, _ skipping: Set<Int>) throws -> Bool {
            tries += 1
            return try fails(steps, skipping)
        }
        var low = 0, high = steps
        while low + 1 < high, tries < budget {
            let middle = (low + high) / 2
            if try attempt(middle, []) { high = middle } else { low = middle }
        }
        var skipping: Set<Int> = []
        var chunk = max(1, high / 2)
        while tries < budget {
            var start = 1
            while start <= high, tries < budget {
                let candidate = Set(start..<min(high + 1, start + chunk)).subtracting(skipping)
                if !candidate.isEmpty, try attempt(high, skipping.union(candidate)) { skipping.formUnion(candidate) }
                start += chunk
            }
            if chunk == 1 { break }
            chunk /= 2
        }
        return (high, skipping)
    }
}
