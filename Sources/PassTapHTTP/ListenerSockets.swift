public import PassTapCore
import NIOCore
import SockDiag

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
            case .failure(let refusal): problem = refusal.description
            case .success(let bound):
                problem = suits(bound, address, anyLoopbackOfPort: anyLoopbackOfPort) ? nil : "it is bound to \(bound), and [\(name)] listen is \(address)"
            }
            if let problem {
                for descriptor in descriptors { close(descriptor) }
                return .refused(
                    "systemd passed a socket named \(name) (FileDescriptorName=\(name)) that passtapd cannot serve: \(problem); fix the socket unit's ListenStream= or [\(name)] listen, then restart both")
            }
        }
        return .adopt(descriptors)
    }

    /// Whether `bound` is at `listen`'s address and port; with `anyLoopbackOfPort` (and for
    /// `localhost`), at any loopback address of that port.
    private static func suits(_ bound: PassedSocket, _ listen: ListenAddress, anyLoopbackOfPort: Bool) -> Bool {
        guard bound.port == listen.port else { return false }
        if anyLoopbackOfPort || listen.host == "localhost" { return HostHeaderCheck.isLoopback(bound.address) }
        return HostHeaderCheck.address(listen.host) == bound.address
    }
}
