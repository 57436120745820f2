import Foundation

extension Process {
    /// Starts the process with no signals blocked. A child inherits the signal mask of the
    /// thread that spawns it, and Dispatch and Swift-concurrency threads block nearly all
    /// signals: started from a test, `avahi-publish` would never see the SIGTERM of `terminate()`.
    func runWithDefaultSignalMask() throws {
        var nothing = sigset_t()
        var previous = sigset_t()
        sigemptyset(&nothing)
        pthread_sigmask(SIG_SETMASK, &nothing, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try run()
    }
}
