public import PassTapCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Configuration.Forward {
    /// This till's `source` in forwarded events and `forward.status`: `[forward] source`, else the
    /// host name.
    public var effectiveSource: String { source ?? Self.hostName() }

    /// The machine's host name (gethostname(2)), or `localhost` if it cannot be read.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
