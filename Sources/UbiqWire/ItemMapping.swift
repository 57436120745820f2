import UbiqChunking
import UbiqModel

/// Converts index items to wire messages and back. Decoding is where a peer's claims are
/// checked: a path that escapes the container, chunk lists that do not add up or versions
/// without authors are refused here, before the engine sees them.
public enum ItemMapping {
    /// Upper bound on one chunk a peer may describe (ours are at most 256 KiB).
    public static let maxChunkSize: UInt32 = 4 * 1024 * 1024

    /// `grouped`: name a file of ``ChunkGroups/threshold`` chunks or more by its chunk groups
    /// (protocol 2) instead of listing every chunk.
    public static func fileInfo(_ item: Item, sequence: Int64, absent: Bool = false, grouped: Bool = false) -> Ubiq_Wire_FileInfo {
        var info = Ubiq_Wire_FileInfo()
        // A package's content is its members': held or not as a whole, like a file's.
        info.absent = absent && item.kind.hasBytes && !item.deleted
        info.path = item.path.rawValue
        info.kind = kind(item.kind)
        info.deleted = item.deleted
        info.size = item.size
        info.mtimeNs = item.mtime
        info.executable = item.executable
        if item.kind != .symlink { info.permissions = item.permissions.bits }
        info.symlinkTarget = item.symlinkTarget ?? ""
        if grouped && item.kind == .file && item.chunks.count >= ChunkGroups.threshold {
            info.chunkGroups = ChunkGroups.groups(item.chunks).map { chunkGroup($0.group) }
        } else {
            info.blocks = item.chunks.map(block)
        }
        info.version = counters(item.version)
        info.modifiedBy = item.modifiedBy.rawValue
        if let made = item.contentMadeAt { info.contentCounter = made }
        if !item.deleted { info.attributes = attributes(item.attributes) }
        info.members = item.members.map(member)
        info.conflicts = item.conflicts.map(conflictInfo)
        info.sequence = UInt64(sequence)
        return info
    }

    /// The item an entry with a whole chunk list describes; an entry naming chunk groups is
    /// refused here (see ``announced(_:)``).
    public static func item(_ info: Ubiq_Wire_FileInfo) throws(WireError) -> Item {
        let announced = try announced(info)
        guard announced.groups.isEmpty else {
            throw WireError(.invalidChunks, "'\(announced.item.path)' names chunk groups where a whole chunk list was expected")
        }
        return announced.item
    }

    /// A peer's index entry, checked; a file named by chunk groups comes with an empty chunk
    /// list until ``AnnouncedItem/resolved(from:)`` fills it.
    public static func announced(_ info: Ubiq_Wire_FileInfo) throws(WireError) -> AnnouncedItem {
        let path: RelativePath
        do { path = try RelativePath(info.path) } catch {
            throw WireError(.invalidPath, "refused path '\(info.path.prefix(200))': \(error.reason)")
        }
        guard path.isSyncable else { throw WireError(.invalidPath, "refused path '\(path)': inside a .nosync folder") }
        let kind = try kind(info.kind)
        let groups = try groups(info.chunkGroups, size: info.size, kind: kind, deleted: info.deleted, blocks: info.blocks.count)
        let chunks = groups.isEmpty ? try chunks(info.blocks, size: info.size, kind: kind, deleted: info.deleted) : []
        try checkSymlink(kind: kind, deleted: info.deleted, target: info.symlinkTarget, path: path.rawValue)
        var conflicts: [ConflictVersion] = []
        for info in info.conflicts { conflicts.append(try conflict(info, path: path.rawValue)) }
        let version = try version(info.version), modifiedBy = try device(info.modifiedBy)
        if info.hasContentCounter, info.contentCounter == 0 || info.contentCounter > version[modifiedBy] {
            throw WireError(.invalidVersion, "'\(path)' says its content was made at \(modifiedBy)'s change \(info.contentCounter), outside its version")
        }
        let members = try members(info.members, kind: kind, deleted: info.deleted, chunks: chunks, path: path.rawValue)
        let item = Item(
            path: path, kind: kind, deleted: info.deleted, size: info.deleted || !kind.hasBytes ? 0 : info.size,
            mtime: info.mtimeNs, executable: info.executable,
            permissions: info.hasPermissions ? Permissions(mode: info.permissions, kind: kind) : nil,
            attributes: try attributes(info.attributes, kind: kind, deleted: info.deleted, path: path.rawValue),
            symlinkTarget: kind == .symlink && !info.deleted ? info.symlinkTarget : nil,
            chunks: chunks, members: members, version: version, modifiedBy: modifiedBy,
            contentMadeAt: info.hasContentCounter ? info.contentCounter : nil, conflicts: conflicts)
        return AnnouncedItem(item: item, groups: groups, sequence: Int64(clamping: info.sequence), absent: info.absent)
    }

    // MARK: pieces

    static func kind(_ kind: ItemKind) -> Ubiq_Wire_ItemKind {
        switch kind {
        case .file: .file
        case .directory: .directory
        case .symlink: .symlink
        case .package: .package
        }
    }

    static func kind(_ kind: Ubiq_Wire_ItemKind) throws(WireError) -> ItemKind {
        switch kind {
        case .file: return .file
        case .directory: return .directory
        case .symlink: return .symlink
        case .package: return .package
        case .UNRECOGNIZED(let raw): throw WireError(.malformed, "unknown item kind \(raw)")
        }
    }

    static func block(_ chunk: ChunkRef) -> Ubiq_Wire_Block {
        var block = Ubiq_Wire_Block()
        block.offset = chunk.offset
        block.size = chunk.size
        block.hash = .init(chunk.hash.bytes)
        return block
    }

    static func chunkGroup(_ group: ChunkGroup) -> Ubiq_Wire_ChunkGroup {
        var wire = Ubiq_Wire_ChunkGroup()
        wire.hash = .init(group.hash.bytes)
        wire.chunks = UInt32(group.count)
        wire.size = group.size
        return wire
    }

    static func counters(_ version: VersionVector) -> [Ubiq_Wire_Counter] {
        version.sortedEntries.map {
            var counter = Ubiq_Wire_Counter()
            counter.device = $0.device.rawValue
            counter.value = $0.counter
            return counter
        }
    }

    static func conflictInfo(_ version: ConflictVersion) -> Ubiq_Wire_ConflictInfo {
        var info = Ubiq_Wire_ConflictInfo()
        info.id = version.id
        info.kind = kind(version.kind)
        info.size = version.size
        info.mtimeNs = version.mtime
        info.executable = version.executable
        if version.kind != .symlink { info.permissions = version.permissions.bits }
        info.attributes = attributes(version.attributes)
        info.symlinkTarget = version.symlinkTarget ?? ""
        info.blocks = version.chunks.map(block)
        info.members = version.members.map(member)
        info.version = counters(version.version)
        info.modifiedBy = version.modifiedBy.rawValue
        return info
    }

    static func conflict(_ info: Ubiq_Wire_ConflictInfo, path: String) throws(WireError) -> ConflictVersion {
        let kind = try kind(info.kind)
        guard kind != .directory else { throw WireError(.malformed, "conflict version of '\(path)' is a directory") }
        guard !info.id.isEmpty, info.id.utf8.count <= 64,
              info.id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else { throw WireError(.malformed, "conflict version id '\(info.id.prefix(80))' of '\(path)' is not valid") }
        try checkSymlink(kind: kind, deleted: false, target: info.symlinkTarget, path: path)
        let chunks = try chunks(info.blocks, size: info.size, kind: kind, deleted: false)
        return ConflictVersion(
            id: info.id, kind: kind, size: kind.hasBytes ? info.size : 0, mtime: info.mtimeNs, executable: info.executable,
            permissions: info.hasPermissions ? Permissions(mode: info.permissions, kind: kind) : nil,
            attributes: try attributes(info.attributes, kind: kind, deleted: false, path: path),
            symlinkTarget: kind == .symlink ? info.symlinkTarget : nil,
            chunks: chunks, members: try members(info.members, kind: kind, deleted: false, chunks: chunks, path: path),
            version: try version(info.version), modifiedBy: try device(info.modifiedBy))
    }

    static func attributes(_ attributes: ExtendedAttributes) -> [Ubiq_Wire_ExtendedAttribute] {
        attributes.attributes.map {
            var wire = Ubiq_Wire_ExtendedAttribute()
            wire.name = $0.name
            wire.value = .init($0.value)
            return wire
        }
    }

    /// A peer's attributes, held to the rules of ``ExtendedAttributes``: only present files and
    /// folders have them.
    static func attributes(_ wire: [Ubiq_Wire_ExtendedAttribute], kind: ItemKind, deleted: Bool, path: String) throws(WireError) -> ExtendedAttributes {
        guard !wire.isEmpty else { return .empty }
        guard kind != .symlink, !deleted else {
            throw WireError(.malformed, "'\(path.prefix(200))' has extended attributes, but only present files and folders have them")
        }
        guard wire.count <= ExtendedAttributes.limit else { throw WireError(.malformed, "'\(path.prefix(200))' has too many extended attributes") }
        do {
            return try ExtendedAttributes(wire.map { .init(name: $0.name, value: Array($0.value)) })
        } catch {
            throw WireError(.malformed, "refused the extended attributes of '\(path.prefix(200))': \(error.reason)")
        }
    }

    static func chunks(_ blocks: [Ubiq_Wire_Block], size: UInt64, kind: ItemKind, deleted: Bool) throws(WireError) -> [ChunkRef] {
        guard kind.hasBytes, !deleted else {
            guard blocks.isEmpty else { throw WireError(.invalidChunks, "only present files and packages have chunks") }
            return []
        }
        var offset: UInt64 = 0
        var result: [ChunkRef] = []
        result.reserveCapacity(blocks.count)
        for block in blocks {
            guard block.offset == offset, block.size > 0, block.size <= maxChunkSize,
                  let hash = ChunkHash(bytes: Array(block.hash))
            else { throw WireError(.invalidChunks, "chunk at \(block.offset) does not follow at \(offset) or has a bad size or hash") }
            result.append(ChunkRef(offset: offset, size: block.size, hash: hash))
            offset += UInt64(block.size)
        }
        guard offset == size else { throw WireError(.invalidChunks, "chunks add up to \(offset) bytes, not the \(size) claimed") }
        return result
    }

    /// Checks that chunk groups could describe the file: each a plausible run of chunks, all
    /// adding up to its size. Their chunks are checked against them when they arrive.
    static func groups(_ wire: [Ubiq_Wire_ChunkGroup], size: UInt64, kind: ItemKind, deleted: Bool, blocks: Int) throws(WireError) -> [ChunkGroup] {
        guard !wire.isEmpty else { return [] }
        guard kind == .file, !deleted, blocks == 0 else {
            throw WireError(.invalidChunks, "only present files have chunk groups, and not beside a chunk list")
        }
        var total: UInt64 = 0
        var result: [ChunkGroup] = []
        result.reserveCapacity(wire.count)
        for group in wire {
            guard let hash = ChunkHash(bytes: Array(group.hash)), group.chunks > 0, group.chunks <= ChunkGroups.maxChunks,
                  group.size >= UInt64(group.chunks), group.size <= UInt64(group.chunks) * UInt64(maxChunkSize)
            else { throw WireError(.invalidChunks, "a chunk group has a bad hash, count or size") }
            let (next, overflow) = total.addingReportingOverflow(group.size)
            guard !overflow, next <= size else { break }
            total = next
            result.append(ChunkGroup(hash: hash, count: Int(group.chunks), size: group.size))
        }
        guard total == size, result.count == wire.count else {
            throw WireError(.invalidChunks, "chunk groups do not add up to the \(size) bytes claimed")
        }
        return result
    }

    static func member(_ member: PackageMember) -> Ubiq_Wire_PackageMember {
        var wire = Ubiq_Wire_PackageMember()
        wire.path = member.path.rawValue
        wire.kind = kind(member.kind)
        wire.size = member.size
        wire.mtimeNs = member.mtime
        wire.permissions = member.permissions.bits
        wire.symlinkTarget = member.symlinkTarget ?? ""
        wire.attributes = attributes(member.attributes)
        return wire
    }

    /// A present package's inside, held to ``PackageContent``'s rules with its chunks: paths
    /// inside it, each once, in folders of it, links that stay inside, chunks that cover each
    /// file. Nothing else has members.
    static func members(_ wire: [Ubiq_Wire_PackageMember], kind: ItemKind, deleted: Bool, chunks: [ChunkRef], path: String)
        throws(WireError) -> [PackageMember] {
        guard kind == .package, !deleted else {
            guard wire.isEmpty else { throw WireError(.malformed, "'\(path.prefix(200))' has package members but is no present package") }
            return []
        }
        guard wire.count <= PackageContent.maxMembers else {
            throw WireError(.malformed, "package '\(path.prefix(200))' has more than \(PackageContent.maxMembers) members")
        }
        var members: [PackageMember] = []
        members.reserveCapacity(wire.count)
        for entry in wire {
            let inner: RelativePath
            do { inner = try RelativePath(entry.path) } catch {
                throw WireError(.invalidPath, "refused member '\(entry.path.prefix(200))' of package '\(path.prefix(200))': \(error.reason)")
            }
            let memberKind = try Self.kind(entry.kind)
            members.append(PackageMember(
                path: inner, kind: memberKind, size: entry.size, mtime: entry.mtimeNs,
                permissions: Permissions(mode: entry.permissions, kind: memberKind),
                attributes: try attributes(entry.attributes, kind: memberKind, deleted: false, path: path + "/" + entry.path),
                symlinkTarget: memberKind == .symlink || !entry.symlinkTarget.isEmpty ? entry.symlinkTarget : nil))
        }
        do {
            return try PackageContent(members: members, chunks: chunks).members
        } catch {
            throw WireError(.invalidPath, "refused package '\(path.prefix(200))': \(error.reason)")
        }
    }

    static func version(_ counters: [Ubiq_Wire_Counter]) throws(WireError) -> VersionVector {
        var result: [DeviceID: UInt64] = [:]
        for counter in counters {
            guard !counter.device.isEmpty, counter.device.utf8.count <= 128, result[DeviceID(counter.device)] == nil else {
                throw WireError(.invalidVersion, "version vector has an empty, overlong or repeated device")
            }
            // A vector never holds a zero (it counts as absent): [A: 0] would pass as a version
            // here and then be sent on as no version at all, which every peer refuses.
            guard counter.value > 0 else { throw WireError(.invalidVersion, "version vector has a zero counter") }
            result[DeviceID(counter.device)] = counter.value
        }
        guard !result.isEmpty else { throw WireError(.invalidVersion, "version vector is empty") }
        return VersionVector(result)
    }

    static func device(_ raw: String) throws(WireError) -> DeviceID {
        guard !raw.isEmpty, raw.utf8.count <= 128 else { throw WireError(.invalidVersion, "missing or overlong author device") }
        return DeviceID(raw)
    }

    static func checkSymlink(kind: ItemKind, deleted: Bool, target: String, path: String) throws(WireError) {
        guard kind == .symlink, !deleted else { return }
        guard !target.isEmpty, target.utf8.count <= 4096, !target.utf8.contains(0) else {
            throw WireError(.invalidPath, "symlink '\(path)' has an empty, overlong or NUL-containing target")
        }
        guard SymlinkTarget.staysInside(linkPath: path, target: target) else {
            throw WireError(.invalidPath, "symlink '\(path)' points out of the container ('\(target.prefix(200))')")
        }
    }
}
