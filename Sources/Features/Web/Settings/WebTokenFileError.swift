public import PassTapCore
package import Wallets

/// Why a web token file was refused, naming its path and the reason, never the secret.
///
/// Equal by ``code``.
public struct WebTokenFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Hashable, Sendable {
        /// The file could not be read, or fails the key file rules (``MerchantKeyFilePolicy``).
        case refused
        /// Its content is not ``WebTokenFile/expectation``.
        case malformed
    }

    /// What went wrong.
    public let code: Code
    /// The token file's path.
    public let path: String
    /// What was found and what to do; never holds the secret.
    public let reason: String

    init(_ code: Code, path: String, _ reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    public var description: String { "token file \(path): \(reason)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
