import UbiqTestSupport

/// A sync tool as the benchmark drives it on a LAN: one instance per host, each told the
/// static addresses of all the others, host 1 the writer. An instance's files live under
/// `directory`, which the benchmark removes afterwards.
protocol SwarmTool: AnyObject {
    /// As the table shows it.
    var name: String { get }
    /// The process whose CPU time is counted on each host (`/proc/PID/comm`).
    var program: String { get }
    /// Starts an instance on every host of `lan` and returns once each is connected to every
    /// other and has nothing to do.
    func start(on lan: NamespaceLAN, in directory: TempDirectory) async throws
    /// The synced folder on host `index` (counting from 1).
    func folder(_ index: Int) -> String
    /// Called right after the file has been renamed into the writer's folder.
    func placed(_ relativePath: String) async throws
    /// The tool's version, once started.
    var version: String { get }
    /// Stops every instance; safe to call more than once.
    func stop()
}
