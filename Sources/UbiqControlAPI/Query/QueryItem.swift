import Foundation
import UbiqModel

/// One item a query found, with what `NSMetadataItem` tells an iCloud app about a document:
/// its name, size and dates, and where it stands in syncing. `item.status` answers the same.
public struct QueryItem: Hashable, Sendable, Codable {
    /// Container-relative path.
    public var path: String
    /// The last component of ``path``.
    public var name: String
    public var kind: ItemKind
    public var size: Int64
    public var modified: Date
    /// True where this device holds the current content.
    public var downloaded: Bool
    /// Whether another device holds the content of this exact version (iCloud's
    /// `isUploaded`): learned from peers' index updates. The agent always sets it.
    public var uploaded: Bool?
    /// From 0 to 1 while the content is being fetched; nil when it is not.
    public var downloadProgress: Double?
    /// Unresolved conflict versions (see `versions.list`).
    public var conflicts: Int
    /// The version vector in display form, e.g. `{ABCDEFG:1,HIJKLMN:2}`.
    public var version: String
    /// The device whose change produced this content.
    public var modifiedBy: DeviceID

    public init(
        path: String, kind: ItemKind, size: Int64, modified: Date, downloaded: Bool = true, uploaded: Bool? = nil,
        downloadProgress: Double? = nil, conflicts: Int = 0, version: String, modifiedBy: DeviceID
    ) {
        self.path = path
        self.name = String(path.split(separator: "/").last ?? Substring(path))
        self.kind = kind
        self.size = size
        self.modified = modified
        self.downloaded = downloaded
        self.uploaded = uploaded
        self.downloadProgress = downloadProgress
        self.conflicts = conflicts
        self.version = version
        self.modifiedBy = modifiedBy
    }

    /// An indexed item as a query reports it.
    public init(_ item: Item, downloaded: Bool) {
        self.init(path: item.path.rawValue, kind: item.kind, size: Int64(item.size),
                  modified: Self.date(nanoseconds: item.latestChange), downloaded: downloaded,
                  conflicts: item.conflicts.count, version: "\(item.version)", modifiedBy: item.modifiedBy)
    }

    /// Whole seconds and the fraction apart, so a time in milliseconds converts exactly.
    static func date(nanoseconds: Int64) -> Date {
        let (seconds, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        return Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / 1e9)
    }
}
