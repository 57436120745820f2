import Synchronization
import UbiqModel

/// Which paths clients changed on which device at which agitation step: what excuses a
/// change a leased reader saw, or a deleted document coming back.
final class ClientTouches: Sendable {
    private struct Touch {
        var device: Int
        /// Nil: anything on the device.
        var path: RelativePath?
        var step: Int
    }

    private let touches = Mutex<[Touch]>([])

    func touched(_ device: Int, _ paths: [RelativePath?], step: Int) {
        touches.withLock { touches in
            for path in paths { touches.append(Touch(device: device, path: path, step: step)) }
        }
    }

    /// The last step that touched anything: touches after it are later than now.
    func mark() -> Int { touches.withLock { $0.last?.step ?? 0 } }

    /// Whether a client changed something at, above or inside `path` after step `mark`, on
    /// `device` (or, with `elsewhere`, on any other device).
    func touched(_ path: RelativePath, on device: Int, elsewhere: Bool = false, after mark: Int) -> Bool {
        touches.withLock { touches in
            touches.contains { touch in
                touch.step > mark && (touch.device == device) != elsewhere
                    && (touch.path.map { path.isInside($0) || $0.isInside(path) } ?? true)
            }
        }
    }
}
