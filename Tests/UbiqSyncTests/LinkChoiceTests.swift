import Testing
import UbiqModel
import UbiqSync

/// Two devices that dial each other must end with the same one connection, whatever order
/// the links reach each end in.
@Suite struct LinkChoiceTests {
    let small = DeviceID("AAAA"), large = DeviceID("ZZZZ")

    /// The link `local` keeps after `first` and then `second` reached it; each is named by
    /// its dialer.
    func survivor(at local: DeviceID, first: DeviceID, second: DeviceID) -> Int {
        let remote = local == small ? large : small
        return LinkChoice.choose(newDialedBy: second, existingDialedBy: first, local: local, remote: remote) == .replaceExisting ? 2 : 1
    }

    @Test func bothEndsKeepTheLinkTheSmallerDeviceDialedInEitherOrder() {
        // Link 1 dialed by one device, link 2 by the other; each end may see either first.
        for (dialer1, dialer2) in [(small, large), (large, small)] {
            let smallerDialed = dialer1 == small ? 1 : 2
            for smallSeesOneFirst in [true, false] {
                for largeSeesOneFirst in [true, false] {
                    func kept(at end: DeviceID, oneFirst: Bool) -> Int {
                        oneFirst ? survivor(at: end, first: dialer1, second: dialer2)
                            : 3 - survivor(at: end, first: dialer2, second: dialer1)
                    }
                    let atSmall = kept(at: small, oneFirst: smallSeesOneFirst)
                    let atLarge = kept(at: large, oneFirst: largeSeesOneFirst)
                    #expect(atSmall == smallerDialed && atLarge == smallerDialed,
                            "dialers \(dialer1),\(dialer2): small kept \(atSmall), large kept \(atLarge)")
                }
            }
        }
    }

    @Test func aDialerThatDialsAgainReplacesItsOldLinkAtBothEnds() {
        // A dialer dials only a device it has no session with, so its old link is dead.
        for dialer in [small, large] {
            #expect(survivor(at: small, first: dialer, second: dialer) == 2)
            #expect(survivor(at: large, first: dialer, second: dialer) == 2)
        }
    }
}
