public import PassTapCore
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Where an ``HTTPListener`` gets its listening sockets.
public enum ListenerSockets: Sendable {
    /// Binds `address` itself, and `companions` beside it (the other loopback address of the same
    /// port, so no other process can take it: see ``holdingBothLoopbacks(_:)``). A companion the
    /// system does not have (IPv6 turned off) is left out; every other failure keeps the listener
    /// degraded and is retried with the address.
    case bind(ListenAddress, companions: [ListenAddress] = [])
    /// Serves these listening sockets, which systemd passed (`LISTEN_FDS`, from a socket unit) and
    /// ``adopting(_:name:address:anyLoopbackOfPort:)`` checked. The listener never binds: the socket
    /// unit holds the port, even while passtapd is down.
    case adopt([CInt])
    /// Stays down for `reason`: systemd passed sockets that do not suit the configuration.
    case refused(String)

    /// `address` bound by passtapd, with the other loopback address of its port as a companion
    /// when it is a loopback one: `127.0.0.1:8941` holds `[::1]:8941` too, and `localhost:8941`
    /// both. Otherwise a page that connects to `localhost` could land on a process that took the
    /// free one. Port 0 (tests) has no companion: each bind would get another port.
    public static func holdingBothLoopbacks(_ address: ListenAddress) -> ListenerSockets {
        guard address.port != 0 else { return .bind(address) }
        switch address.host {
        case "127.0.0.1": return .bind(address, companions: [ListenAddress(host: "::1", port: address.port)])
        case "::1": return .bind(address, companions: [ListenAddress(host: "127.0.0.1", port: address.port)])
        case "localhost":
            return .bind(ListenAddress(host: "127.0.0.1", port: address.port), companions: [ListenAddress(host: "::1", port: address.port)])
        default: return .bind(address)
        }
    }

    /// The sockets systemd passed under `name` (`FileDescriptorName=`), checked against `address`
    /// (`[web] listen`, `[metrics] listen`): each must be a listening TCP socket bound to that
    /// address and port, or, with `anyLoopbackOfPort`, to any loopback address of that port (a web
    /// socket unit that holds both `127.0.0.1` and `[::1]`). One that does not suit makes the
    /// listener ``refused(_:)``, naming what was passed and what the config says; every passed
    /// socket is then closed (the socket unit keeps its own copy, so the port stays held).
    public static func adopting(_ descriptors: [CInt], name: String, address: ListenAddress, anyLoopbackOfPort: Bool) -> ListenerSockets {
        for descriptor in descriptors {
            let problem: String?
            switch PassedSocket.inspect(descriptor) {
            case .failure(let refusal): problem = refusal.reason
            case .success(let bound):
                problem =
                    bound.matches(address, anyLoopbackOfPort: anyLoopbackOfPort)
                    ? nil : "it is bound to \(bound), and [\(name)] listen is \(address)"
            }
            if let problem {
                for descriptor in descriptors { close(descriptor) }
                return .refused(
                    "systemd passed a socket named \(name) (FileDescriptorName=\(name)) that passtapd cannot serve: \(problem); fix the socket unit's ListenStream= or [\(name)] listen, then restart both")
            }
        }
        return .adopt(descriptors)
    }
}

/// A socket systemd passed, as the kernel describes it.
struct PassedSocket: CustomStringConvertible {
    /// The address bytes (4 or 16) and port it is bound to.
    let address: [UInt8]
    let port: Int

    var description: String {
        if address.count == 4 { return "\(address.map(String.init).joined(separator: ".")):\(port)" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var raw = in6_addr()
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: address) }
        let text = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)).map { _ in String(cString: buffer) } ?? "?"
        return "[\(text)]:\(port)"
    }

    /// Whether it is bound where `listen` says (or, with `anyLoopbackOfPort`, to any loopback
    /// address of its port).
    func matches(_ listen: ListenAddress, anyLoopbackOfPort: Bool) -> Bool {
        guard port == listen.port else { return false }
        let loopback = (address.count == 4 && address[0] == 127) || address == Array(repeating: 0, count: 15) + [1]
        if anyLoopbackOfPort || listen.host == "localhost" { return loopback }
        return Self.literal(listen.host).map { $0 == address } ?? false
    }

    /// The bytes of an IPv4 or IPv6 literal.
    static func literal(_ host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// What `descriptor` is: a listening TCP socket and its address, or why it is not one.
    static func inspect(_ descriptor: CInt) -> Result<PassedSocket, PassedSocketRefused> {
        var type: CInt = 0
        var listening: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else {
            return .failure(PassedSocketRefused(reason: "descriptor \(descriptor) is not a socket (\(String(cString: strerror(errno))))"))
        }
        length = socklen_t(MemoryLayout<CInt>.size)
        guard type == CInt(SOCK_STREAM.rawValue), getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1 else {
            return .failure(PassedSocketRefused(reason: "descriptor \(descriptor) is not a listening stream socket (ListenStream= with Accept=no)"))
        }
        var storage = sockaddr_storage()
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        guard named == 0 else { return .failure(PassedSocketRefused(reason: "descriptor \(descriptor) has no address (\(String(cString: strerror(errno))))")) }
        switch CInt(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            return .success(PassedSocket(address: withUnsafeBytes(of: address.sin_addr) { Array($0) }, port: Int(UInt16(bigEndian: address.sin_port))))
        case AF_INET6:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            return .success(PassedSocket(address: withUnsafeBytes(of: address.sin6_addr) { Array($0) }, port: Int(UInt16(bigEndian: address.sin6_port))))
        default:
            return .failure(PassedSocketRefused(reason: "descriptor \(descriptor) is not a TCP socket (family \(storage.ss_family))"))
        }
    }
}
