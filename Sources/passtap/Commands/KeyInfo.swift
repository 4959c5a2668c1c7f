import ArgumentParser
import VAS

/// `passtap key-info PATH`: the key id and pass.json public key of a merchant key file, offline.
///
/// Loads the file as passtapd does (``MerchantKey/init(contentsOfFile:policy:)``): same formats,
/// same permission policy, judged for the user `passtapd` when there is one
/// (``KeyTools/keyFilePolicy``). It cannot know the socket's group, which passtapd also refuses.
struct KeyInfo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key-info",
        abstract: "Show a merchant key file's key id and encryptionPublicKey, with passtapd's checks.",
        discussion: """
            Accepts what passtapd accepts: SEC1 or PKCS#8 (PEM or DER) or a 64-digit hex scalar, \
            in a regular file owned by root or passtapd's user, that others cannot use and its \
            group cannot write, readable by no group but passtapd's own (0600, or 0640 \
            root:passtapd). It judges for the user passtapd if there is one, else for you; \
            passtapd also refuses a key its socket's group can read. The key id is the one phones \
            put in front of every cryptogram for this key, and the one `passtap pass-read` shows. \
            Exit codes: 0 read, 65 not a P-256 private key, 66 missing or unreadable, 77 \
            permissions too open or the wrong owner or group.
            """)

    @Argument(help: "The key file.")
    var path: String

    @Flag(help: "Print one JSON object (path, key_id, encryption_public_key) instead of text.")
    var json = false

    func run() throws {
        let key = try KeyTools.loadKey(path)
        let info = Info(path: path, keyID: key.keyID.hex, encryptionPublicKey: key.compressedPublicKeySPKIBase64)
        if json { return try KeyTools.json(info) }
        print("""
            path: \(info.path)
            key id: \(info.keyID)
            encryptionPublicKey: \(info.encryptionPublicKey)
            """)
    }

    /// What `--json` prints.
    struct Info: Encodable {
        let path: String
        let keyID: String
        let encryptionPublicKey: String

        enum CodingKeys: String, CodingKey {
            case path
            case keyID = "key_id"
            case encryptionPublicKey = "encryption_public_key"
        }
    }
}
