/// What a file package holds: its members, and one chunk list for all its files, laid end
/// to end in member order (the package's byte stream), so a package's changed files are
/// found and fetched chunk by chunk like any file's, and only the changed chunks move.
///
/// Construction checks everything a peer could get wrong, so that nothing written from a
/// package can leave it: members sorted by path bytes, each once, each inside a folder
/// member, links that stay inside the package, and chunks that cover each file exactly.
public struct PackageContent: Hashable, Sendable {
    public let members: [PackageMember]
    public let chunks: [ChunkRef]
    /// The bytes of all its files.
    public let size: UInt64
    /// Each member's chunks in `chunks` (empty but for files).
    private let chunkRanges: [Range<Int>]
    /// Each member's first byte in the package's stream.
    private let streamOffset: [UInt64]

    /// The most members a package may have.
    public static let maxMembers = 100_000

    /// Checks members and chunks as a peer or the index gives them.
    public init(members: [PackageMember], chunks: [ChunkRef]) throws(ModelError) {
        guard members.count <= Self.maxMembers else {
            throw ModelError(.invalidPackage, "a package has \(members.count) members, more than \(Self.maxMembers)")
        }
        var chunkRanges: [Range<Int>] = []
        var streamOffset: [UInt64] = []
        chunkRanges.reserveCapacity(members.count)
        streamOffset.reserveCapacity(members.count)
        var folders = Set<RelativePath>()
        var next = 0
        var offset: UInt64 = 0
        var previous: RelativePath?
        for member in members {
            let path = member.path
            if let previous, !previous.rawValue.utf8.lexicographicallyPrecedes(path.rawValue.utf8) {
                throw ModelError(.invalidPackage, "package member '\(path)' is out of order or listed twice")
            }
            previous = path
            if let parent = path.parent, !folders.contains(parent) {
                throw ModelError(.invalidPackage, "package member '\(path)' lies in '\(parent)', which is not a folder of the package")
            }
            let first = next
            streamOffset.append(offset)
            switch member.kind {
            case .package:
                throw ModelError(.invalidPackage, "package member '\(path)' is marked a package; a package inside one is a folder of it")
            case .directory:
                folders.insert(path)
                try Self.check(member, hasSize: false, hasTarget: false)
            case .symlink:
                try Self.check(member, hasSize: false, hasTarget: true)
                guard let target = member.symlinkTarget, !target.isEmpty, !target.utf8.contains(0),
                      SymlinkTarget.staysInside(linkPath: path.rawValue, target: target) else {
                    throw ModelError(.invalidPackage, "package link '\(path)' points out of the package")
                }
            case .file:
                try Self.check(member, hasSize: true, hasTarget: false)
                var covered: UInt64 = 0
                while covered < member.size {
                    guard next < chunks.count, chunks[next].offset == offset + covered, chunks[next].size > 0 else {
                        throw ModelError(.invalidPackage, "the chunks of package member '\(path)' do not cover its \(member.size) bytes")
                    }
                    covered += UInt64(chunks[next].size)
                    next += 1
                }
                guard covered == member.size else {
                    throw ModelError(.invalidPackage, "a chunk of package member '\(path)' runs past its \(member.size) bytes")
                }
                let (sum, overflow) = offset.addingReportingOverflow(member.size)
                guard !overflow else { throw ModelError(.invalidPackage, "a package's files add up to more bytes than can be counted") }
                offset = sum
            }
            chunkRanges.append(first..<next)
        }
        guard next == chunks.count else {
            throw ModelError(.invalidPackage, "a package lists \(chunks.count - next) chunks beyond its files")
        }
        self.members = members
        self.chunks = chunks
        self.chunkRanges = chunkRanges
        self.streamOffset = streamOffset
        self.size = offset
    }

    private static func check(_ member: PackageMember, hasSize: Bool, hasTarget: Bool) throws(ModelError) {
        if !hasSize, member.size != 0 {
            throw ModelError(.invalidPackage, "package member '\(member.path)' is a \(member.kind.rawValue) with a size")
        }
        if hasTarget != (member.symlinkTarget != nil) {
            throw ModelError(.invalidPackage, "package member '\(member.path)' is a \(member.kind.rawValue) \(hasTarget ? "without" : "with") a link target")
        }
    }

    /// The package as the scanner reads it: its members with each file's own chunks (offsets
    /// from the file's start), in any order.
    public init(files: [(member: PackageMember, chunks: [ChunkRef])]) throws(ModelError) {
        let sorted = files.sorted { $0.member.path.rawValue.utf8.lexicographicallyPrecedes($1.member.path.rawValue.utf8) }
        var chunks: [ChunkRef] = []
        var offset: UInt64 = 0
        for (member, own) in sorted where member.kind == .file {
            chunks += own.map { ChunkRef(offset: offset + $0.offset, size: $0.size, hash: $0.hash) }
            offset += member.size
        }
        try self.init(members: sorted.map(\.member), chunks: chunks)
    }


    /// The latest modification time of anything inside; nil for an empty package.
    public var latestChange: Int64? { members.map(\.mtime).max() }

    /// A file member's chunks with offsets from the file's start, as it is assembled on its
    /// own; empty for other members.
    public func fileChunks(of index: Int) -> [ChunkRef] {
        let start = streamOffset[index]
        return chunks[chunkRanges[index]].map { ChunkRef(offset: $0.offset - start, size: $0.size, hash: $0.hash) }
    }

    /// Each file member's index with its chunks as ``fileChunks(of:)`` gives them.
    public var files: [(index: Int, chunks: [ChunkRef])] {
        members.indices.filter { members[$0].kind == .file }.map { ($0, fileChunks(of: $0)) }
    }

    /// The members whose content differs from `other`'s member at the same path (or which
    /// `other` lacks), by index: what a receiver holding `other` must write anew. A file
    /// counts as changed when its bytes, mode, time or attributes differ.
    public func changedMembers(since other: PackageContent?) -> [Int] {
        guard let other else { return Array(members.indices) }
        let before = Dictionary(other.members.indices.map { (other.members[$0].path, $0) }, uniquingKeysWith: { first, _ in first })
        return members.indices.filter { index in
            guard let old = before[members[index].path], other.members[old] == members[index] else { return true }
            return members[index].kind == .file && other.fileChunks(of: old).map(\.hash) != fileChunks(of: index).map(\.hash)
        }
    }
}

extension PackageContent: Codable {
    private enum CodingKeys: String, CodingKey {
        case members, chunks
    }

    /// Decoded content is checked as a peer's is.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(members: try container.decode([PackageMember].self, forKey: .members),
                      chunks: try container.decode([ChunkRef].self, forKey: .chunks))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(members, forKey: .members)
        try container.encode(chunks, forKey: .chunks)
    }
}

extension Item {
    /// What this package holds, checked as a peer's list is (``PackageContent``).
    public func packageContent() throws(ModelError) -> PackageContent {
        try PackageContent(members: members, chunks: chunks)
    }
}

extension ConflictVersion {
    /// What this package version holds, checked as a peer's list is.
    public func packageContent() throws(ModelError) -> PackageContent {
        try PackageContent(members: members, chunks: chunks)
    }
}
