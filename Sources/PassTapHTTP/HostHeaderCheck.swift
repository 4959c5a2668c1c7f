import PassTapCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which `Host` header a request to an ``HTTPListener`` (metrics or web) may carry: one naming this
/// listener by an address, never by another name, so that a web page cannot reach the listener
/// through DNS rebinding (a name of the attacker's that comes to resolve to 127.0.0.1 makes the
/// browser send that name as `Host`).
///
/// Accepted hosts: `localhost`, a loopback address (`127.0.0.0/8`, `[::1]`), the listen address
/// itself, and any IP address when the listener is on a wildcard (`0.0.0.0`, `[::]`), whose own
/// addresses are not known here (an address, unlike a name, cannot be rebound). The port must be
/// the listener's (no port means 80).
public struct HostHeaderCheck: Sendable {
    /// The listener's host (`[metrics] listen`, `[web] listen`), as configured.
    private let listenHost: String

    /// The check for a listener on `listen`.
    public init(listen: ListenAddress) {
        listenHost = listen.host
    }

    /// Whether `value`, a request's `Host` header, names this listener on `port`.
    public func accepts(_ value: String, port: Int) -> Bool {
        guard let (host, given) = Self.split(value.lowercased()), given == port else { return false }
        if host == "localhost" { return true }
        guard let address = Self.address(host) else { return false }
        if Self.isLoopback(address) { return true }
        return listenHost == "0.0.0.0" || listenHost == "::" || Self.address(listenHost) == address
    }

    /// The bytes of an IPv4 (4) or IPv6 (16) literal; `nil` for anything else (a name).
    static func address(_ text: String) -> [UInt8]? { ipv4(text) ?? ipv6(text) }

    /// Whether `address` (4 or 16 bytes) is a loopback one: `127.0.0.0/8` or `::1`.
    static func isLoopback(_ address: [UInt8]) -> Bool {
        address.count == 4 ? address[0] == 127 : address == ipv6("::1")
    }

    /// `host[:port]` or `[v6][:port]` as (host without brackets, port; 80 when absent).
    private static func split(_ value: String) -> (String, Int)? {
        let host: Substring
        let rest: Substring
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            host = value[value.index(after: value.startIndex)..<close]
            rest = value[value.index(after: close)...]
            guard ipv6(String(host)) != nil else { return nil }
        } else if let colon = value.firstIndex(of: ":") {
            host = value[..<colon]
            rest = value[colon...]
        } else {
            host = value[...]
            rest = ""
        }
        guard !host.isEmpty else { return nil }
        if rest.isEmpty { return (String(host), 80) }
        let digits = rest.dropFirst()
        guard rest.hasPrefix(":"), !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(digits)
        else { return nil }
        return (String(host), port)
    }

    private static func ipv4(_ text: String) -> [UInt8]? { literal(text, family: AF_INET, size: 4) }

    private static func ipv6(_ text: String) -> [UInt8]? { literal(text, family: AF_INET6, size: 16) }

    private static func literal(_ text: String, family: Int32, size: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: size)
        guard text.withCString({ inet_pton(family, $0, &buffer) }) == 1 else { return nil }
        return buffer
    }
}
