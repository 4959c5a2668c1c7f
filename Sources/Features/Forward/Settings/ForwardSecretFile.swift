public import PassTapCore
import Foundation
package import Wallets

/// A `[[forward.webhooks]] secret_file` or a `[[forward.postgres]] password_file`: one line
/// holding a secret a sink sends or signs with.
///
/// Both are judged by the merchant key file rules (``MerchantKeyFilePolicy``: owner, no access
/// for others, never readable by the socket's group) and read on the descriptor that was checked,
/// as web token files are (``WebTokenFile``). The file's bytes are zeroed once the secret is made.
public enum ForwardSecretFile {
    /// The most bytes a secret file may hold (a 64-byte `whsec_` secret is 94 characters).
    public static let maximumLength = 1024
    /// Random bytes in a webhook secret ``generateWebhookSecret()`` makes (256 bits).
    public static let generatedBytes = 32
    /// What a webhook secret file must hold, for error messages.
    public static let webhookExpectation =
        "one line holding a Standard Webhooks secret: \(WebhookSecret.prefix) and the base64 of \(WebhookSecret.minimumBytes) to \(WebhookSecret.maximumBytes) random bytes (passtap forward secret writes one)"
    /// What a password file must hold, for error messages.
    public static let passwordExpectation = "one line holding the password (UTF-8, no control characters)"

    /// Opens `path` with `policy`'s checks and reads the webhook secret it holds.
    package static func readWebhookSecret(path: String, policy: MerchantKeyFilePolicy) throws(ForwardSecretFileError) -> WebhookSecret {
        var bytes = try readLine(path: path, policy: policy)
        defer { SecretBytes.zero(&bytes) }
        guard !bytes.isEmpty else { throw ForwardSecretFileError(path: path, "expected \(webhookExpectation); the file is empty") }
        guard let secret = WebhookSecret(text: String(decoding: bytes, as: UTF8.self)) else {
            let problem = bytes.starts(with: Array(WebhookSecret.prefix.utf8)) ? "the part after \(WebhookSecret.prefix) is not that" : "it does not start with \(WebhookSecret.prefix)"
            throw ForwardSecretFileError(path: path, "expected \(webhookExpectation); \(problem)")
        }
        return secret
    }

    /// Opens `path` with `policy`'s checks and reads the password it holds.
    package static func readPassword(path: String, policy: MerchantKeyFilePolicy) throws(ForwardSecretFileError) -> ForwardSecretText {
        var bytes = try readLine(path: path, policy: policy)
        defer { SecretBytes.zero(&bytes) }
        guard !bytes.isEmpty else { throw ForwardSecretFileError(path: path, "expected \(passwordExpectation); the file is empty") }
        guard let text = String(validating: bytes, as: UTF8.self), !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw ForwardSecretFileError(path: path, "expected \(passwordExpectation); found a control character or bytes that are not UTF-8")
        }
        return ForwardSecretText(text)
    }

    /// The file's bytes without one final newline; a second line is refused.
    private static func readLine(path: String, policy: MerchantKeyFilePolicy) throws(ForwardSecretFileError) -> [UInt8] {
        var bytes: [UInt8]
        do {
            bytes = try KeyFile.readChecked(path: path, limit: maximumLength, policy: policy)
        } catch {
            throw ForwardSecretFileError(path: path, error.reason)
        }
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") {
            SecretBytes.zero(&bytes)
            throw ForwardSecretFileError(path: path, "found a carriage return: write the file with Unix line ends")
        }
        if bytes.count > maximumLength || bytes.contains(UInt8(ascii: "\n")) {
            SecretBytes.zero(&bytes)
            throw ForwardSecretFileError(path: path, bytes.count > maximumLength ? "longer than \(maximumLength) bytes" : "found a second line: the file holds one line")
        }
        return bytes
    }

    /// A new webhook secret: ``generatedBytes`` bytes of the system's cryptographically secure
    /// generator (`SystemRandomNumberGenerator`, getrandom(2) on Linux).
    public static func generateWebhookSecret() -> WebhookSecret {
        var generator = SystemRandomNumberGenerator()
        return WebhookSecret(key: (0..<generatedBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Writes a new webhook secret (``generateWebhookSecret()``'s `whsec_` line, then a newline)
    /// to a new file at `path` with mode 0600; never replaces an existing file.
    package static func writeNewWebhookSecret(path: String) throws(MerchantKeyError) {
        var bytes = Array((generateWebhookSecret().text + "\n").utf8)
        defer { SecretBytes.zero(&bytes) }
        try KeyFile.writeNew(path: path, bytes: bytes)
    }
}
