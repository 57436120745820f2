import Synchronization
import UbiqModel

/// What coordinated readers of packages saw: a reader holds a read lease on a package and
/// looks at it several times; nothing but a client may change it meanwhile (the engine
/// swaps a package only under a write lease), so any other change is a reader that could
/// read half of the old version and half of the new.
final class LeasedReads: Sendable {
    private let violations = Mutex<[String]>([])

    func report(_ violation: String) {
        violations.withLock { $0.append(violation) }
    }

    var all: [String] { violations.withLock { $0 } }
}
