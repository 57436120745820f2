import Foundation

/// A disk for tests of what a file system does under the agent: an image file, formatted
/// (`mkfs.KIND`), loop-mounted at `mountPoint`, and unmounted (lazily too), mounted again or
/// remounted read-only as a person's disk would be. Needs root; unmounted when released.
public final class LoopDisk: @unchecked Sendable {
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    public let mountPoint: String
    public let image: String

    /// Formats an image of `bytes` (sparse: it takes only what is written) and mounts it.
    public init(kind: String = "ext4", at mountPoint: String, image: String, bytes: Int) throws {
        self.mountPoint = mountPoint
        self.image = image
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let fd = open(image, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        guard fd >= 0, ftruncate(fd, off_t(bytes)) == 0 else { throw Failed(description: "cannot make the image \(image)") }
        close(fd)
        try Self.run(kind == "ext4" ? ["mkfs.ext4", "-q", "-F", image] : ["mkfs.\(kind)", "-q", "-f", image])
        try mount()
    }

    /// Whether `mkfs.KIND` is installed (scripts/install-deps.sh installs them, and CI runs it).
    public static func hasMkfs(_ kind: String) -> Bool {
        ["/usr/sbin/", "/sbin/", "/usr/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + "mkfs.\(kind)") }
    }

    public func mount() throws { try Self.run(["mount", "-o", "loop", image, mountPoint]) }

    /// `umount`, or `umount -l` (detached now, whatever holds it open).
    public func unmount(lazy: Bool = false) throws { try Self.run(["umount"] + (lazy ? ["-l"] : []) + [mountPoint]) }

    public func remount(readOnly: Bool) throws {
        try Self.run(["mount", "-o", "remount," + (readOnly ? "ro" : "rw"), mountPoint])
    }

    /// Bytes in use on the file system.
    public var used: Int64 {
        var info = statvfs()
        guard statvfs(mountPoint, &info) == 0 else { return -1 }
        return Int64(info.f_blocks - info.f_bfree) * Int64(info.f_frsize)
    }

    /// Whether a file system is mounted at the mount point now.
    public var isMounted: Bool {
        ((try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? "")
            .split(separator: "\n").contains { $0.split(separator: " ").dropFirst().first.map(String.init) == mountPoint }
    }

    deinit { while isMounted, (try? exitStatus(of: ["umount", "-l", mountPoint])) == 0 {} }

    private static func run(_ command: [String]) throws {
        let status = try exitStatus(of: command)
        guard status == 0 else { throw Failed(description: "\(command.joined(separator: " ")) failed (\(status))") }
    }
}
