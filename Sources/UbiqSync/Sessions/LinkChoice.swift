import UbiqModel

/// Which of two links to the same peer device the engine keeps, decided the same way at
/// both ends so that exactly one connection per pair of devices survives: a link dialed by
/// the smaller device ID beats one dialed by the larger; of two dialed by the same device
/// the newer wins, since a dialer only dials a device it holds no session with (its old
/// link is dead on its side, whatever this end still believes).
public enum LinkChoice: Sendable, Equatable {
    /// Install the new link and end the existing session.
    case replaceExisting
    /// Keep the existing session and close the new link.
    case keepExisting

    /// The choice for a `new` link to `remote` while a session on `existing` runs; each
    /// is described by the device that dialed it.
    public static func choose(newDialedBy new: DeviceID, existingDialedBy existing: DeviceID,
                              local: DeviceID, remote: DeviceID) -> LinkChoice {
        if new == existing { return .replaceExisting }
        return new == min(local, remote) ? .replaceExisting : .keepExisting
    }
}
