/// The `timeout` param some methods take: seconds as a JSON number, from 0 to an hour.
public enum ControlTimeout {
    public static let maximumSeconds = 3600.0

    /// What a client sends for `duration`.
    public static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// What the agent waits for: `seconds`, or `defaultSeconds` when the client sent none.
    public static func duration(_ seconds: Double?, default defaultSeconds: Double) throws(RPCError) -> Duration {
        let value = seconds ?? defaultSeconds
        guard value.isFinite, value >= 0, value <= maximumSeconds else {
            throw RPCError.invalidParams("timeout must be between 0 and \(Int(maximumSeconds)) seconds")
        }
        return .milliseconds(Int64(value * 1000))
    }
}
