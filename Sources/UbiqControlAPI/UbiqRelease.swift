/// The release of ubiq these programs belong to: the agent reports it in `agent.status` and
/// to peers, and `ubiq --version` and `ubiqd --version` print it.
public enum UbiqRelease {
    public static let version = "0.1.0"
}
