public import PassTapCore

/// Why a forward secret or password file was refused, naming its path and the reason, never the
/// secret.
public struct ForwardSecretFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file's path.
    public let path: String
    /// What was found and what to do.
    public let reason: String

    init(path: String, _ reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
