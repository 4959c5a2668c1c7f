public import PassTapCore
import Foundation
package import Wallets

/// A `[[web.tokens]] token_file`: one line holding a web token's secret.
///
/// The file is judged by the merchant key file rules (``MerchantKeyFilePolicy``: owner, no access
/// for others, never readable by the socket's group) and read on the descriptor that was checked.
/// Its content is the secret, optionally followed by one newline: at least ``minimumLength``
/// printable ASCII characters without spaces (`!` to `~`), at most ``maximumLength``, and at least
/// ``minimumDistinctCharacters`` different ones, which turns away placeholders typed by hand
/// (`xxxx…`, a word repeated). `passtap web-token` writes ``generate()``'s 43 characters.
public enum WebTokenFile {
    /// The fewest characters a secret may have.
    public static let minimumLength = 32
    /// The most characters a secret may have.
    public static let maximumLength = 512
    /// The fewest different characters a secret may have.
    public static let minimumDistinctCharacters = 8
    /// Random bytes in a secret ``generate()`` makes (256 bits).
    public static let generatedBytes = 32
    /// What a token file must hold, for error messages.
    public static let expectation =
        "one line holding the secret: \(minimumLength) to \(maximumLength) printable ASCII characters without spaces, at least \(minimumDistinctCharacters) of them different (passtap web-token writes one)"

    /// Opens `path` with `policy`'s checks and reads its secret. The file's bytes are zeroed
    /// before this returns; the secret keeps its own copy.
    package static func read(path: String, policy: MerchantKeyFilePolicy) throws(WebTokenFileError) -> WebTokenSecret {
        var bytes: [UInt8]
        do {
            // One byte over the longest line with its newline, so an oversized file is noticed.
            bytes = try KeyFile.readChecked(path: path, limit: maximumLength + 1, policy: policy)
        } catch {
            throw WebTokenFileError(.refused, path: path, error.reason)
        }
        defer { SecretBytes.zero(&bytes) }
        return try secret(contents: bytes, path: path)
    }

    /// The secret of a token file's `contents` (`path` only labels the error).
    public static func secret(contents: [UInt8], path: String) throws(WebTokenFileError) -> WebTokenSecret {
        var line = contents[...]
        if line.last == UInt8(ascii: "\n") { line = line.dropLast() }
        let problem: String?
        if line.count > maximumLength {
            problem = "longer than \(maximumLength) characters"
        } else if let offset = line.firstIndex(where: { !(0x21...0x7E).contains($0) }) {
            let what = line[offset] == UInt8(ascii: "\n") ? "a second line" : line[offset] == UInt8(ascii: "\r") ? "a carriage return (write the file with Unix line ends)" : "a space, a control or a non-ASCII character"
            problem = "found \(what) at byte \(offset + 1)"
        } else if line.count < minimumLength {
            problem = line.isEmpty ? "the file is empty" : "only \(line.count) characters long"
        } else if Set(line).count < minimumDistinctCharacters {
            problem = "only \(Set(line).count) different characters: not a random secret"
        } else {
            problem = nil
        }
        if let problem {
            throw WebTokenFileError(.malformed, path: path, "expected \(expectation); \(problem)")
        }
        return WebTokenSecret(String(decoding: line, as: UTF8.self))
    }

    /// A new secret: ``generatedBytes`` bytes of the system's cryptographically secure generator
    /// (`SystemRandomNumberGenerator`, getrandom(2) on Linux) in base64url without padding.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<generatedBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Writes a new secret (``generate()``, then a newline) to a new file at `path` with mode
    /// 0600; never replaces an existing file.
    package static func writeNew(path: String) throws(MerchantKeyError) {
        try KeyFile.writeNew(path: path, bytes: Array((generate() + "\n").utf8))
    }
}
