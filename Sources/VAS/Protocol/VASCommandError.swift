/// Why a GET VAS DATA command, a pass type identifier or a cryptogram could not be built.
///
/// These are configuration or caller mistakes; ``detail`` names the value and the limit.
public struct VASCommandError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable snake_case name.
    public enum Code: String, Hashable, Sendable {
        /// The pass type identifier is empty, too long, or not printable ASCII.
        case invalidPassTypeIdentifier = "invalid_pass_type_identifier"
        /// The sign-up URL is longer than 64 characters or not printable ASCII.
        case invalidURL = "invalid_url"
        /// The VAS filter is not 5 bytes starting with `01`.
        case invalidFilter = "invalid_filter"
        /// The terminal nonce is not 4 bytes.
        case invalidNonce = "invalid_nonce"
        /// A message to seal is longer than 64 bytes.
        case messageTooLong = "message_too_long"
    }

    /// What went wrong.
    public let code: Code
    /// The offending value's size or text and the rule it broke.
    public let detail: String

    init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "VAS \(code.rawValue): \(detail)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
