/// The facts of an `lstat` that tell whether a file may have changed since it was hashed:
/// when all four are equal the scanner trusts the old chunk list.
public struct FileStat: Hashable, Sendable, Codable {
    public var size: UInt64
    public var mtimeNs: Int64
    public var ctimeNs: Int64
    public var inode: UInt64

    public init(size: UInt64, mtimeNs: Int64, ctimeNs: Int64, inode: UInt64) {
        self.size = size
        self.mtimeNs = mtimeNs
        self.ctimeNs = ctimeNs
        self.inode = inode
    }
}
