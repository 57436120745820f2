import Foundation
import UbiqModel

/// The zeros of a chunk response sent as lengths (`ChunkResponse.zero_runs`): a chunk that
/// runs from a sparse file's data into one of its holes carries its zeros in a few bytes,
/// and the requester puts them back before checking the chunk's hash.
public enum ChunkZeroRuns {
    /// Runs shorter than this are sent as bytes.
    public static let minimumRun = 4096

    /// Leaves the runs of zeros out of `bytes`; nil when there is none worth leaving out.
    public static func elide(_ bytes: Data) -> (data: Data, runs: [Ubiq_Wire_ZeroRun])? {
        let found = bytes.withUnsafeBytes { ZeroRuns.exact(in: $0, minimum: minimumRun) }
        guard !found.isEmpty else { return nil }
        var data = Data()
        data.reserveCapacity(bytes.count - found.reduce(0) { $0 + $1.count })
        for kept in ZeroRuns.complement(of: found, count: bytes.count) {
            data.append(bytes[(bytes.startIndex + kept.lowerBound)..<(bytes.startIndex + kept.upperBound)])
        }
        let runs = found.map { run in
            Ubiq_Wire_ZeroRun.with {
                $0.offset = UInt64(run.lowerBound)
                $0.length = UInt64(run.count)
            }
        }
        return (data, runs)
    }

    /// The bytes of a response with its runs of zeros put back. Runs out of order, touching,
    /// empty, or making more than `limit` bytes (what was asked for) are a wire error.
    public static func restore(_ data: Data, runs: [Ubiq_Wire_ZeroRun], limit: Int) throws(WireError) -> Data {
        guard !runs.isEmpty else { return data }
        var total = UInt64(data.count)
        var end: UInt64 = 0
        for (index, run) in runs.enumerated() {
            guard run.length > 0, index == 0 ? run.offset >= end : run.offset > end else {
                throw WireError(.malformed, "a chunk response's zero runs are empty, out of order or touching")
            }
            let (runEnd, overflow) = run.offset.addingReportingOverflow(run.length)
            total = total.addingReportingOverflow(run.length).partialValue
            guard !overflow, runEnd <= UInt64(limit), total <= UInt64(limit) else {
                throw WireError(.malformed, "a chunk response's zero runs reach past the \(limit) bytes asked for")
            }
            end = runEnd
        }
        guard end <= total else { throw WireError(.malformed, "a chunk response's zero runs reach past its bytes") }
        var bytes = Data(count: Int(total))
        var source = data.startIndex
        var position = 0
        for run in runs + [Ubiq_Wire_ZeroRun.with { $0.offset = total }] {
            let kept = Int(run.offset) - position
            bytes.replaceSubrange(position..<Int(run.offset), with: data[source..<(source + kept)])
            source += kept
            position = Int(run.offset + run.length)
        }
        return bytes
    }
}
