import Foundation
import UbiqModel

/// The index's binary form of version vectors, items and conflict versions: JSON cost more to
/// encode and decode than the rest of a write while files stream in. Every blob starts with a
/// format byte; blobs written as JSON by earlier versions (starting with `{` or `[`) are still
/// read, so no migration rewrites them.
enum IndexBinary {
    static let format: UInt8 = 1

    static func encode(_ version: VersionVector) -> Data {
        var writer = Writer()
        writer.byte(format)
        writer.version(version)
        return Data(writer.bytes)
    }

    static func encode(_ item: Item) -> Data {
        var writer = Writer()
        writer.byte(format)
        writer.string(item.path.rawValue)
        writer.content(kind: item.kind, deleted: item.deleted, size: item.size, mtime: item.mtime, permissions: item.permissions,
                       attributes: item.attributes, symlinkTarget: item.symlinkTarget, chunks: item.chunks, members: item.members,
                       version: item.version, modifiedBy: item.modifiedBy, contentMadeAt: item.contentMadeAt)
        writer.varint(UInt64(item.conflicts.count))
        for conflict in item.conflicts { writer.conflict(conflict) }
        return Data(writer.bytes)
    }

    static func encode(_ attributes: ExtendedAttributes) -> Data {
        var writer = Writer()
        writer.byte(format)
        writer.attributes(attributes)
        return Data(writer.bytes)
    }

    /// A package's members, for the item table's `members` column.
    static func encode(_ members: [PackageMember]) -> Data {
        var writer = Writer()
        writer.byte(format)
        writer.members(members)
        return Data(writer.bytes)
    }

    /// Checked with the package's chunks, as a peer's list is.
    static func decodeMembers(_ data: Data, chunks: [ChunkRef]) throws(IndexError) -> [PackageMember] {
        guard data.first == format else { throw IndexError(.corrupt, "a package's members have an unknown format") }
        var reader = Reader(data)
        let members = try reader.members()
        try reader.end()
        return try checked(members, chunks: chunks)
    }

    static func checked(_ members: [PackageMember], chunks: [ChunkRef]) throws(IndexError) -> [PackageMember] {
        do { return try PackageContent(members: members, chunks: chunks).members } catch {
            throw IndexError(.corrupt, "a package in the index does not hold together: \(error.reason)")
        }
    }

    static func decodeAttributes(_ data: Data) throws(IndexError) -> ExtendedAttributes {
        guard data.first == format else { throw IndexError(.corrupt, "an item's extended attributes have an unknown format") }
        var reader = Reader(data)
        let attributes = try reader.attributes()
        try reader.end()
        return attributes
    }

    static func encode(_ conflicts: [ConflictVersion]) -> Data {
        var writer = Writer()
        writer.byte(format)
        writer.varint(UInt64(conflicts.count))
        for conflict in conflicts { writer.conflict(conflict) }
        return Data(writer.bytes)
    }

    static func decodeVersion(_ data: Data) throws(IndexError) -> VersionVector {
        guard data.first == format else { return try IndexCoding.decode(json: data, as: VersionVector.self) }
        var reader = Reader(data)
        let version = try reader.version()
        try reader.end()
        return version
    }

    static func decodeItem(_ data: Data) throws(IndexError) -> Item {
        guard data.first == format else { return try IndexCoding.decode(json: data, as: Item.self) }
        var reader = Reader(data)
        guard let path = try? RelativePath(try reader.string()) else { throw IndexError(.corrupt, "an item blob holds an invalid path") }
        let content = try reader.content()
        let conflicts = try reader.conflicts()
        try reader.end()
        return Item(path: path, kind: content.kind, deleted: content.deleted, size: content.size, mtime: content.mtime,
                    executable: content.executable, permissions: content.permissions, attributes: content.attributes,
                    symlinkTarget: content.symlinkTarget, chunks: content.chunks, members: content.members, version: content.version,
                    modifiedBy: content.modifiedBy, contentMadeAt: content.contentMadeAt, conflicts: conflicts)
    }

    static func decodeConflicts(_ data: Data) throws(IndexError) -> [ConflictVersion] {
        guard data.first == format else { return try IndexCoding.decode(json: data, as: [ConflictVersion].self) }
        var reader = Reader(data)
        let conflicts = try reader.conflicts()
        try reader.end()
        return conflicts
    }

    /// What an item and a conflict version have in common.
    struct Content {
        var kind: ItemKind
        var deleted: Bool
        var size: UInt64
        var mtime: Int64
        var executable: Bool
        /// Nil in blobs written before permissions travelled.
        var permissions: Permissions?
        var attributes: ExtendedAttributes
        var symlinkTarget: String?
        var chunks: [ChunkRef]
        var members: [PackageMember]
        var version: VersionVector
        var modifiedBy: DeviceID
        /// Where a change of mtime alone followed the change that made the content.
        var contentMadeAt: UInt64?
    }

    struct Writer {
        var bytes: [UInt8] = []

        mutating func byte(_ value: UInt8) { bytes.append(value) }

        mutating func varint(_ value: UInt64) {
            var rest = value
            while rest >= 0x80 {
                bytes.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            bytes.append(UInt8(rest))
        }

        mutating func string(_ value: String) {
            let utf8 = Array(value.utf8)
            varint(UInt64(utf8.count))
            bytes += utf8
        }

        mutating func version(_ version: VersionVector) {
            let entries = version.sortedEntries
            varint(UInt64(entries.count))
            for entry in entries {
                string(entry.device.rawValue)
                varint(entry.counter)
            }
        }

        /// Flags: 1 deleted, 2 executable, 4 a symlink target follows, 8 permissions follow,
        /// 16 a content counter follows, 32 extended attributes follow, 64 a package's members end it.
        mutating func content(kind: ItemKind, deleted: Bool, size: UInt64, mtime: Int64, permissions: Permissions,
                              attributes: ExtendedAttributes, symlinkTarget: String?, chunks: [ChunkRef], members: [PackageMember],
                              version: VersionVector, modifiedBy: DeviceID, contentMadeAt: UInt64? = nil) {
            byte(UInt8(kind.code))
            byte((deleted ? 1 : 0) | (permissions.executable ? 2 : 0) | (symlinkTarget != nil ? 4 : 0) | 8 | (contentMadeAt != nil ? 16 : 0)
                 | (attributes.isEmpty ? 0 : 32) | (members.isEmpty ? 0 : 64))
            varint(size)
            varint(UInt64(bitPattern: mtime))
            varint(UInt64(permissions.bits))
            if let symlinkTarget { string(symlinkTarget) }
            let encoded = IndexCoding.encode(chunks)
            varint(UInt64(encoded.count))
            bytes += encoded
            self.version(version)
            string(modifiedBy.rawValue)
            if let contentMadeAt { varint(contentMadeAt) }
            if !attributes.isEmpty { self.attributes(attributes) }
            if !members.isEmpty { self.members(members) }
        }

        /// Each member: its path, kind, size, mtime, permission bits, a flags byte (1 a link
        /// target follows, 2 attributes follow) and those.
        mutating func members(_ members: [PackageMember]) {
            varint(UInt64(members.count))
            for member in members {
                string(member.path.rawValue)
                byte(UInt8(member.kind.code))
                varint(member.size)
                varint(UInt64(bitPattern: member.mtime))
                varint(UInt64(member.permissions.bits))
                byte((member.symlinkTarget != nil ? 1 : 0) | (member.attributes.isEmpty ? 0 : 2))
                if let target = member.symlinkTarget { string(target) }
                if !member.attributes.isEmpty { attributes(member.attributes) }
            }
        }

        mutating func attributes(_ attributes: ExtendedAttributes) {
            varint(UInt64(attributes.attributes.count))
            for attribute in attributes.attributes {
                string(attribute.name)
                varint(UInt64(attribute.value.count))
                bytes += attribute.value
            }
        }

        mutating func conflict(_ conflict: ConflictVersion) {
            string(conflict.id)
            content(kind: conflict.kind, deleted: false, size: conflict.size, mtime: conflict.mtime, permissions: conflict.permissions,
                    attributes: conflict.attributes, symlinkTarget: conflict.symlinkTarget, chunks: conflict.chunks, members: conflict.members,
                    version: conflict.version, modifiedBy: conflict.modifiedBy)
        }
    }

    /// Reads what `Writer` wrote; anything short, overlong or malformed is `IndexError.corrupt`.
    struct Reader {
        let bytes: [UInt8]
        var position = 1

        init(_ data: Data) { bytes = [UInt8](data) }

        mutating func byte() throws(IndexError) -> UInt8 {
            guard position < bytes.count else { throw Self.short }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func varint() throws(IndexError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = try byte()
                guard shift < 64 else { throw IndexError(.corrupt, "an index blob holds an overlong number") }
                value |= UInt64(next & 0x7F) << shift
                if next < 0x80 { return value }
                shift += 7
            }
        }

        mutating func count(_ bound: Int) throws(IndexError) -> Int {
            let value = try varint()
            guard value <= UInt64(bound) else { throw Self.short }
            return Int(value)
        }

        mutating func raw(_ count: Int) throws(IndexError) -> ArraySlice<UInt8> {
            guard count <= bytes.count - position else { throw Self.short }
            defer { position += count }
            return bytes[position..<(position + count)]
        }

        mutating func string() throws(IndexError) -> String {
            let utf8 = try raw(try count(bytes.count))
            guard let text = String(validating: utf8, as: UTF8.self) else { throw IndexError(.corrupt, "an index blob holds invalid UTF-8") }
            return text
        }

        mutating func version() throws(IndexError) -> VersionVector {
            var counters: [DeviceID: UInt64] = [:]
            for _ in 0..<(try count(bytes.count)) {
                let device = DeviceID(try string())
                counters[device] = try varint()
            }
            return VersionVector(counters)
        }

        mutating func content() throws(IndexError) -> Content {
            let kind = try ItemKind(code: Int(try byte()))
            let flags = try byte()
            let size = try varint()
            let mtime = Int64(bitPattern: try varint())
            let permissions = flags & 8 != 0 ? try permissions(kind: kind) : nil
            let symlinkTarget = flags & 4 != 0 ? try string() : nil
            let chunks = try IndexCoding.decodeChunks(Data(try raw(try count(bytes.count))))
            let version = try version()
            let modifiedBy = DeviceID(try string())
            let contentMadeAt = flags & 16 != 0 ? try varint() : nil
            let attributes = flags & 32 != 0 ? try attributes() : .empty
            let members = flags & 64 != 0 ? try IndexBinary.checked(try self.members(), chunks: chunks) : []
            if let contentMadeAt, contentMadeAt == 0 || contentMadeAt > version[modifiedBy] {
                throw IndexError(.corrupt, "an index blob's content counter lies outside its version")
            }
            return Content(kind: kind, deleted: flags & 1 != 0, size: size, mtime: mtime, executable: flags & 2 != 0,
                           permissions: permissions, attributes: attributes, symlinkTarget: symlinkTarget, chunks: chunks,
                           members: members, version: version, modifiedBy: modifiedBy, contentMadeAt: contentMadeAt)
        }

        mutating func members() throws(IndexError) -> [PackageMember] {
            var members: [PackageMember] = []
            for _ in 0..<(try count(min(bytes.count, PackageContent.maxMembers))) {
                guard let path = try? RelativePath(try string()) else { throw IndexError(.corrupt, "a package member has an invalid path") }
                let kind = try ItemKind(code: Int(try byte()))
                let size = try varint()
                let mtime = Int64(bitPattern: try varint())
                let permissions = try permissions(kind: kind)
                let flags = try byte()
                let target = flags & 1 != 0 ? try string() : nil
                let attributes = flags & 2 != 0 ? try attributes() : .empty
                members.append(PackageMember(path: path, kind: kind, size: size, mtime: mtime, permissions: permissions,
                                             attributes: attributes, symlinkTarget: target))
            }
            return members
        }

        mutating func attributes() throws(IndexError) -> ExtendedAttributes {
            var list: [ExtendedAttributes.Attribute] = []
            for _ in 0..<(try count(bytes.count)) {
                let name = try string()
                list.append(.init(name: name, value: Array(try raw(try count(bytes.count)))))
            }
            do { return try ExtendedAttributes(list) } catch { throw IndexError(.corrupt, "an index blob holds invalid extended attributes: \(error)") }
        }

        mutating func permissions(kind: ItemKind) throws(IndexError) -> Permissions {
            guard let bits = UInt32(exactly: try varint()) else { throw IndexError(.corrupt, "an index blob holds invalid permissions") }
            return Permissions(mode: bits, kind: kind)
        }

        mutating func conflicts() throws(IndexError) -> [ConflictVersion] {
            var result: [ConflictVersion] = []
            for _ in 0..<(try count(bytes.count)) {
                let id = try string()
                let content = try content()
                result.append(ConflictVersion(id: id, kind: content.kind, size: content.size, mtime: content.mtime,
                                              executable: content.executable, permissions: content.permissions,
                                              attributes: content.attributes, symlinkTarget: content.symlinkTarget,
                                              chunks: content.chunks, members: content.members, version: content.version,
                                              modifiedBy: content.modifiedBy))
            }
            return result
        }

        func end() throws(IndexError) {
            guard position == bytes.count else { throw IndexError(.corrupt, "an index blob has \(bytes.count - position) bytes too many") }
        }

        static let short = IndexError(.corrupt, "an index blob ends early")
    }
}
