import Foundation
import ISO7816
import PassTapCore
import PassTapConfig

/// `config`: config file text through `ConfigLoader.parse`, as `passtapd` and `--check-config`
/// read it. The file sits in a folder of its own that holds one valid merchant key file,
/// `merchant.hex` (mode 0600), so inputs can name a key that loads.
///
/// Text that is not UTF-8 is refused before the loader (`ConfigLoader.load` reads UTF-8 only).
/// Every input either loads or is refused with a `ConfigurationError` that names this file, a
/// line within it (or none), and never holds the key's bytes (unless the input itself does).
final class ConfigFuzzing: Sendable {
    static let shared = ConfigFuzzing()

    let folder: String
    var path: String { folder + "/passtapd.toml" }

    private init() {
        folder = NSTemporaryDirectory() + "passtap-fuzz-config-\(getuid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let key = folder + "/merchant.hex"
        _ = FileManager.default.createFile(
            atPath: key, contents: Data((SessionFuzzing.scalar.hexString + "\n").utf8), attributes: [.posixPermissions: 0o600])
    }

    func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        do {
            _ = try ConfigLoader.parse(text, file: path, reusingTheLastTree: false)
        } catch {
            try require(error.file == path, "a refusal naming \(error.file), not the file \(path)")
            // Lines as TOML counts them: LF or CRLF ends one (bytes: "\r\n" is one Character).
            let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
            if let line = error.line {
                try require((1...max(lines, 1)).contains(line), "a refusal at line \(line) of a \(lines)-line file: \(error)")
            }
            let description = error.description
            for secret in SessionFuzzing.scalarHex where !text.contains(secret) {
                try require(!description.contains(secret), "a refusal that holds the merchant key: \(description)")
            }
        }
    }
}
