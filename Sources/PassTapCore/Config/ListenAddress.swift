#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP address to listen on: `127.0.0.1:9466`, `[::1]:9466` or `localhost:9466`.
///
/// The host is an IPv4 literal, an IPv6 literal in brackets, or `localhost`; no other name is
/// resolved, so the daemon never waits on DNS to start.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host as written, without brackets: an IPv4 or IPv6 literal, or `localhost`.
    public var host: String
    /// The TCP port, 1 to 65535 (0, any free port, only for tests).
    public var port: Int

    /// An address; `host` is not checked here (``parse(_:)`` checks what a config file gives).
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// What a config file's `listen` must look like, for error messages.
    public static let expectation = "host:port with an IPv4 address (\"127.0.0.1:9466\"), [IPv6]:port (\"[::1]:9466\") or localhost:port, port 1 to 65535"

    /// Reads `host:port`; `nil` when `text` is not of ``expectation``'s form.
    public static func parse(_ text: String) -> ListenAddress? {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
            guard isLiteral(String(host), family: AF_INET6) else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard host == "localhost" || isLiteral(String(host), family: AF_INET) else { return nil }
        }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), portText.count <= 5,
            let port = Int(portText), (1...65535).contains(port)
        else { return nil }
        return ListenAddress(host: String(host), port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    private static func isLiteral(_ host: String, family: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return host.withCString { inet_pton(family, $0, &buffer) } == 1
    }
}
