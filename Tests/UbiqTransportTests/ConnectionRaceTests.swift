import Testing
import UbiqTransport

/// The Happy Eyeballs ordering and schedule, without sockets.
struct ConnectionRaceTests {
    typealias Action = ConnectionRace.Action

    static func family(_ address: String) -> ConnectionRace.Family { address.contains(":") ? .ipv6 : .ipv4 }

    @Test func familiesInterleaveIPv6First() {
        let addresses = ["198.18.0.2", "10.8.0.2", "fd00::2", "172.17.0.2", "fe80::2%e1"]
        #expect(ConnectionRace.ordered(addresses, family: Self.family)
            == ["fd00::2", "198.18.0.2", "fe80::2%e1", "10.8.0.2", "172.17.0.2"])
    }

    @Test func oneFamilyKeepsItsOrderAndDuplicatesGo() {
        #expect(ConnectionRace.ordered(["10.0.0.2", "10.0.0.1", "10.0.0.2"], family: Self.family) == ["10.0.0.2", "10.0.0.1"])
        #expect(ConnectionRace.ordered(["fd00::9", "fd00::1"], family: Self.family) == ["fd00::9", "fd00::1"])
        #expect(ConnectionRace.ordered([String](), family: Self.family).isEmpty)
    }

    @Test func attemptsStartOneDelayApartUntilAllRun() {
        var race = ConnectionRace(attempts: 3)
        #expect(race.begin() == [.startAttempt(0), .startTimer(1)])
        #expect(race.delayElapsed(1) == [.startAttempt(1), .startTimer(2)])
        // The last attempt arms no timer: there is nothing left to start.
        #expect(race.delayElapsed(2) == [.startAttempt(2)])
        #expect(race.delayElapsed(2) == [])
        #expect(race.attemptSucceeded(1) == [.keep(1, cancel: [0, 2])])
        #expect(race.isFinished)
    }

    @Test func aFailureStartsTheNextAtOnceAndOutdatesItsTimer() {
        var race = ConnectionRace(attempts: 3)
        _ = race.begin()
        #expect(race.attemptFailed(0) == [.startAttempt(1), .startTimer(2)])
        // The timer armed with attempt 0 fires later: it must not start attempt 2 early.
        #expect(race.delayElapsed(1) == [])
        #expect(race.delayElapsed(2) == [.startAttempt(2)])
    }

    @Test func theRaceFailsWhenTheLastRunningAttemptFails() {
        var race = ConnectionRace(attempts: 2)
        _ = race.begin()
        _ = race.delayElapsed(1)
        #expect(race.attemptFailed(1) == [])
        #expect(!race.isFinished)
        #expect(race.attemptFailed(0) == [.fail])
        #expect(race.isFinished)
    }

    @Test func noAddressFailsAtOnce() {
        var race = ConnectionRace(attempts: 0)
        #expect(race.begin() == [.fail])
    }

    @Test func aSecondSuccessIsClosedAndLateEventsDoNothing() {
        var race = ConnectionRace(attempts: 2)
        _ = race.begin()
        _ = race.delayElapsed(1)
        #expect(race.attemptSucceeded(0) == [.keep(0, cancel: [1])])
        #expect(race.attemptSucceeded(1) == [.close(1)])
        #expect(race.attemptSucceeded(0) == [])
        #expect(race.attemptFailed(1) == [])
        #expect(race.delayElapsed(1) == [])
    }

    @Test func anAttemptNeverStartedIsIgnored() {
        var race = ConnectionRace(attempts: 3)
        _ = race.begin()
        #expect(race.attemptSucceeded(2) == [])
        #expect(race.attemptFailed(2) == [])
        #expect(!race.isFinished)
    }
}
