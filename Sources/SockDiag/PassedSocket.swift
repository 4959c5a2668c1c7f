#if canImport(Glibc)
import Glibc
#endif

/// A listening socket systemd passed (`LISTEN_FDS`), as the kernel describes it: in this target,
/// without NIO, because with NIO's C modules in the same Swift module, MemberImportVisibility takes
/// Glibc's socket structs for CNIOLinux's in some builds.
public struct PassedSocket: Sendable, CustomStringConvertible {
    /// The address bytes (4 or 16) it is bound to.
    public let address: [UInt8]
    /// The port it is bound to.
    public let port: Int

    public var description: String {
        if address.count == 4 { return "\(address.map(String.init).joined(separator: ".")):\(port)" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var raw = in6_addr()
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: address) }
        let text = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)).map { _ in String(cString: buffer) } ?? "?"
        return "[\(text)]:\(port)"
    }

    /// What `descriptor` is: a listening TCP socket and its address, or why it is not one.
    public static func inspect(_ descriptor: CInt) -> Result<PassedSocket, PassedSocketProblem> {
        var type: CInt = 0
        var listening: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else {
            return .failure(PassedSocketProblem(reason: "descriptor \(descriptor) is not a socket (\(String(cString: strerror(errno))))"))
        }
        length = socklen_t(MemoryLayout<CInt>.size)
        guard type == CInt(SOCK_STREAM.rawValue), getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1 else {
            return .failure(PassedSocketProblem(reason: "descriptor \(descriptor) is not a listening stream socket (ListenStream= with Accept=no)"))
        }
        var storage = sockaddr_storage()
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        guard named == 0 else { return .failure(PassedSocketProblem(reason: "descriptor \(descriptor) has no address (\(String(cString: strerror(errno))))")) }
        switch CInt(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            return .success(PassedSocket(address: withUnsafeBytes(of: address.sin_addr) { Array($0) }, port: Int(UInt16(bigEndian: address.sin_port))))
        case AF_INET6:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            return .success(PassedSocket(address: withUnsafeBytes(of: address.sin6_addr) { Array($0) }, port: Int(UInt16(bigEndian: address.sin6_port))))
        default:
            return .failure(PassedSocketProblem(reason: "descriptor \(descriptor) is not a TCP socket (family \(storage.ss_family))"))
        }
    }
}

/// Why a passed descriptor is not a listening TCP socket.
public struct PassedSocketProblem: Error, Sendable, CustomStringConvertible {
    /// The sentence.
    public let reason: String
    public var description: String { reason }
}
