/// Why a merchant key file was refused, naming the path and the reason, never the key.
///
/// Equal by ``code``.
public struct MerchantKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable snake_case name.
    public enum Code: String, Hashable, Sendable {
        /// The file could not be opened, inspected or read.
        case unreadable
        /// The path is not a regular file.
        case notRegularFile = "not_regular_file"
        /// Others may read or write it, its group may write it, or a group that may not read it
        /// (the socket's, or one that is not the daemon's own) may.
        case insecurePermissions = "insecure_permissions"
        /// Owned by a user other than root and the daemon's user.
        case untrustedOwner = "untrusted_owner"
        /// Bigger than any key file could be.
        case tooLarge = "too_large"
        /// Not SEC1/PKCS#8 PEM or DER, nor a hex scalar.
        case unrecognizedFormat = "unrecognized_format"
        /// A password-protected PKCS#8 key.
        case encrypted
        /// A key for another curve or algorithm.
        case notP256 = "not_p256"
        /// The scalar is zero, not below the curve order, or the wrong length.
        case invalidScalar = "invalid_scalar"
        /// Writing a new key would replace an existing file.
        case alreadyExists = "already_exists"
        /// Writing a new key failed.
        case writeFailed = "write_failed"
    }

    /// What went wrong.
    public let code: Code
    /// The key file's path.
    public let path: String
    /// What was found and what to do; never holds key bytes.
    public let reason: String

    package init(_ code: Code, path: String, _ reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    public var description: String { "merchant key \(path): \(reason)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
