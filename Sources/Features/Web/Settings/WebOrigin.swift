package import ConfigKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `[[web.tokens]] origins` entry: a browser Origin as RFC 6454 §6.2 serialises it, which is
/// what a browser sends in the `Origin` header and the only form that can match one.
///
/// ```
/// origin = scheme "://" host [ ":" port ]     scheme: https, or http for a loopback host
/// host   = DNS name (a-z 0-9 - .) | IPv4 | "[" IPv6 "]"
/// port   = 1-65535, never the scheme's default (a browser leaves 80 and 443 out)
/// ```
///
/// `http://` is accepted only for a loopback host (127.0.0.0/8, `[::1]`, `localhost`: the rule
/// webhook URLs follow, ``ConfigPaths/isLoopbackHost(_:)``). A plain-HTTP page served over the
/// network can have script injected on the way (shop Wi-Fi), and that script would hold the
/// token's roles.
///
/// Stored lower-cased (scheme and host are case-insensitive; browsers send them lower-cased).
/// `"null"` (what sandboxed frames, `file:` pages and some redirects send, so any page can claim
/// it) and `"*"` are refused, and so is anything with a path, query or trailing slash.
enum WebOrigin {
    /// Why an `origins` entry was refused.
    struct Problem: Error {
        let message: String
    }

    static let expectation =
        "an exact origin scheme://host[:port] with scheme https (http only for 127.0.0.0/8, [::1] or localhost), such as \"https://pos.example.com\" or \"http://127.0.0.1:8080\""

    /// The entry lower-cased, or why it is refused.
    static func normalized(_ text: String) -> Result<String, Problem> {
        let lowered = String(text.lowercased())
        func refuse(_ why: String) -> Result<String, Problem> {
            .failure(Problem(message: "expected \(expectation), found \"\(text)\": \(why)"))
        }
        if lowered == "*" { return refuse("a wildcard would let every web page use the token; list each page's origin") }
        if lowered == "null" {
            return refuse("sandboxed frames, file: pages and some redirects send Origin: null, so any page could claim it")
        }
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            scheme = "http"
        } else {
            return refuse("the scheme must be http:// or https://")
        }
        let rest = lowered.dropFirst(scheme.count + 3)
        if let stray = rest.first(where: { "/?#@".contains($0) }) {
            let what: String
            switch stray {
            case "/": what = rest.firstIndex(of: "/") == rest.index(before: rest.endIndex) ? "a trailing slash" : "a path"
            case "@": what = "user information"
            default: what = "a query or fragment"
            }
            return refuse("\(what) is never part of an Origin header")
        }
        guard rest.allSatisfy(\.isASCII) else {
            return refuse("write an internationalised name in its xn-- (punycode) form, as browsers send it")
        }
        let host: Substring
        var portText: Substring? = nil
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return refuse("an IPv6 address needs its closing bracket") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return refuse("expected :PORT after the IPv6 address") }
                portText = after.dropFirst()
            }
            var buffer = [UInt8](repeating: 0, count: 16)
            guard String(host).withCString({ inet_pton(AF_INET6, $0, &buffer) }) == 1 else {
                return refuse("\"\(host)\" is not an IPv6 address")
            }
        } else {
            if let colon = rest.firstIndex(of: ":") {
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            } else {
                host = rest
            }
            let allowed = host.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }
            guard !host.isEmpty, allowed, !host.hasPrefix("."), !host.hasSuffix("."), !host.contains("..") else {
                return refuse("the host must be a name (letters, digits, '-', '.') or an IP address")
            }
        }
        if let portText {
            guard let port = Int(portText), portText.allSatisfy(\.isNumber), !portText.hasPrefix("0"), (1...65535).contains(port) else {
                return refuse("the port must be a number from 1 to 65535")
            }
            if (scheme == "http" && port == 80) || (scheme == "https" && port == 443) {
                return refuse("a browser leaves the default port out of its Origin header: write \"\(scheme)://\(String(rest.prefix(rest.count - portText.count - 1)))\"")
            }
        }
        guard scheme == "https" || ConfigPaths.isLoopbackHost(String(host)) else {
            return refuse(
                "plain http:// is accepted for a loopback host only: anyone on the network path (shop Wi-Fi) can inject script into a plain-HTTP page, and that script would hold the token's roles; serve the page over https://")
        }
        return .success(lowered)
    }
}
