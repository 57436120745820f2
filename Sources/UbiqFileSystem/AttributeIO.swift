#if canImport(Glibc)
import Glibc
#endif
import UbiqModel

/// Reads and writes the `user.` extended attributes of an open file or folder
/// (`flistxattr`, `fgetxattr`, `fsetxattr`, `fremovexattr`; see xattr(7)). A file system that
/// holds none (`ENOTSUP`) reads as an empty set.
enum AttributeIO {
    // The Glibc module leaves out <sys/xattr.h>: the calls are looked up once at run time.
    private typealias List = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int
    private typealias Get = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Int) -> Int
    private typealias Set = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, Int32) -> Int32
    private typealias Remove = @convention(c) (Int32, UnsafePointer<CChar>?) -> Int32
    private static let flistxattr: List? = dlsym(nil, "flistxattr").map { unsafeBitCast($0, to: List.self) }
    private static let fgetxattr: Get? = dlsym(nil, "fgetxattr").map { unsafeBitCast($0, to: Get.self) }
    private static let fsetxattr: Set? = dlsym(nil, "fsetxattr").map { unsafeBitCast($0, to: Set.self) }
    private static let fremovexattr: Remove? = dlsym(nil, "fremovexattr").map { unsafeBitCast($0, to: Remove.self) }

    /// What reading a file's attributes found.
    enum Read: Equatable {
        case attributes(ExtendedAttributes)
        /// More than ``ExtendedAttributes/limit`` bytes of names and values.
        case tooLarge(bytes: Int)
        case failed(errno: Int32, operation: String)
    }

    static func read(_ fd: Int32) -> Read {
        let names: [String]
        switch userNames(fd) {
        case .success(let list): names = list
        case .failure(let code): return .failed(errno: code.code, operation: "list extended attributes of")
        }
        var list: [ExtendedAttributes.Attribute] = []
        var total = 0
        for name in names {
            switch value(fd, name) {
            case .success(nil): continue  // removed since it was listed
            case .success(let bytes?):
                total += name.utf8.count + bytes.count
                list.append(.init(name: name, value: bytes))
            case .failure(let code): return .failed(errno: code.code, operation: "read extended attribute '\(name)' of")
            }
        }
        // The names are the file system's `user.` names: only the size can break the rules.
        do { return .attributes(try ExtendedAttributes(list)) } catch { return .tooLarge(bytes: total) }
    }

    /// Makes the file's `user.` attributes exactly `attributes`: removes the others, sets
    /// those that differ. Attributes of other namespaces are left alone.
    static func write(_ attributes: ExtendedAttributes, to fd: Int32, display: String) throws(FileSystemError) {
        let present: [String]
        switch userNames(fd) {
        case .success(let list): present = list
        case .failure(let code) where code.code == ENOTSUP && attributes.isEmpty: return
        case .failure(let code): throw unsupportedOr(code.code, "list extended attributes of", display)
        }
        for name in present where attributes[name] == nil {
            guard let fremovexattr, fremovexattr(fd, name) == 0 || errno == ENODATA else {
                throw unsupportedOr(errno, "remove extended attribute '\(name)' of", display)
            }
        }
        for attribute in attributes.attributes {
            if present.contains(attribute.name), case .success(let old?) = value(fd, attribute.name), old == attribute.value { continue }
            guard let fsetxattr else { throw unsupportedOr(ENOTSUP, "set extended attribute '\(attribute.name)' of", display) }
            let result = attribute.value.withUnsafeBytes { fsetxattr(fd, attribute.name, $0.baseAddress, $0.count, 0) }
            guard result == 0 else { throw unsupportedOr(errno, "set extended attribute '\(attribute.name)' of", display) }
        }
    }

    private static func unsupportedOr(_ code: Int32, _ operation: String, _ display: String) -> FileSystemError {
        guard code == ENOTSUP else { return .posix(code, operation, display) }
        return FileSystemError(.ioError(errno: code),
                               "\(operation) '\(display)' failed: this file system holds no extended attributes; "
                                   + "set extended_attributes = false for the container to sync without them")
    }

    struct Errno: Error { let code: Int32 }

    /// The names in the `user.` namespace, or an empty list where the file system holds none.
    private static func userNames(_ fd: Int32) -> Result<[String], Errno> {
        guard let flistxattr else { return .success([]) }
        while true {
            let size = flistxattr(fd, nil, 0)
            if size < 0 { return errno == ENOTSUP ? .success([]) : .failure(Errno(code: errno)) }
            if size == 0 { return .success([]) }
            var buffer = [CChar](repeating: 0, count: size)
            let got = flistxattr(fd, &buffer, size)
            if got < 0 {
                if errno == ERANGE { continue }  // grew since it was measured
                return .failure(Errno(code: errno))
            }
            let names = buffer[..<got].split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
            return .success(names.filter(ExtendedAttributes.travels))
        }
    }

    /// The value of `name`; nil where it is gone.
    private static func value(_ fd: Int32, _ name: String) -> Result<[UInt8]?, Errno> {
        guard let fgetxattr else { return .success(nil) }
        while true {
            let size = fgetxattr(fd, name, nil, 0)
            if size < 0 { return errno == ENODATA ? .success(nil) : .failure(Errno(code: errno)) }
            var buffer = [UInt8](repeating: 0, count: size)
            let got = buffer.withUnsafeMutableBytes { fgetxattr(fd, name, $0.baseAddress, size) }
            if got < 0 {
                if errno == ERANGE { continue }
                return errno == ENODATA ? .success(nil) : .failure(Errno(code: errno))
            }
            return .success(Array(buffer[..<got]))
        }
    }
}
