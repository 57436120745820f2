#if canImport(Glibc)
import Glibc
#endif

/// `setxattr(2)` without the rules ubiq holds sets to, for tests that need a set ubiq would
/// refuse (the Glibc module leaves out <sys/xattr.h>). 0, or -1 with errno.
public func setRawAttribute(_ path: String, _ name: String, _ value: [UInt8]) -> Int32 {
    typealias SetAttribute = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, Int32) -> Int32
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "setxattr") else { return -1 }
    let call = unsafeBitCast(symbol, to: SetAttribute.self)
    return value.withUnsafeBytes { call(path, name, $0.baseAddress, $0.count, 0) }
}
