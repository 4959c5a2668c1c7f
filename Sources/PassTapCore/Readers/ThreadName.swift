#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The name of the calling thread as the kernel keeps it (15 bytes at most on Linux): what `ps -L`
/// and `top -H` show, and what tests check to see which thread made a call.
///
/// Foundation's `Thread.name` is not enough: a thread Linux starts inherits its creator's name
/// (a Swift concurrency thread's `oot.default-qos`), and reading `Thread.current.name` under load
/// was seen to return that inherited name. glibc's `pthread_setname_np`/`pthread_getname_np` are
/// not in Swift's Glibc module (they need `_GNU_SOURCE`), so they are looked up once at run time.
public enum ThreadName {
    private typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    private typealias GetName = @convention(c) (pthread_t, UnsafeMutablePointer<CChar>, Int) -> Int32

    private static let setName: SetName? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np")
        .map { unsafeBitCast($0, to: SetName.self) }
    private static let getName: GetName? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getname_np")
        .map { unsafeBitCast($0, to: GetName.self) }

    /// Names the calling thread (truncated to 15 bytes).
    public static func set(_ name: String) {
        Thread.current.name = name
        let short = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        _ = short.withCString { setName?(pthread_self(), $0) }
    }

    /// The calling thread's kernel name ("" where it cannot be read).
    public static var current: String {
        guard let getName else { return Thread.current.name ?? "" }
        var buffer = [CChar](repeating: 0, count: 16)
        guard getName(pthread_self(), &buffer, buffer.count) == 0 else { return "" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
