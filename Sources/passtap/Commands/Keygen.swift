import ArgumentParser
import Foundation
import VAS
import Wallets

extension MerchantKeyFormat: ExpressibleByArgument {}

/// `passtap keygen --pass-type-id ID --out DIR [--owner USER[:GROUP]]`: a new merchant key for
/// one pass type, offline; with `--smarttap --collector-id N --key-version V`, a new Google Smart
/// Tap collector key instead (``runSmartTap()``).
///
/// Writes the private key to `DIR/<pass-type-id>.pem` (mode 0600, never over an existing file;
/// DIR is created with mode 0700 when missing), gives it to `--owner` if set, and prints what goes
/// into pass.json and passtapd.toml. Private key material is never printed.
struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make a new Apple VAS merchant key (P-256) for a pass type, or a Google Smart Tap collector key, offline.",
        discussion: """
            Writes the private key to DIR/<pass-type-id>.pem with mode 0600 (DIR is created with \
            mode 0700 if missing) and prints the key id, the pass.json "nfc" entry with its \
            encryptionPublicKey, and the [[vas.merchants]] lines for passtapd.toml. An existing \
            file is never replaced: to rotate, give another --out (for example a dated folder). \
            --owner gives the key file (and a folder keygen created) to that user and group, \
            e.g. --owner passtapd for the packaged daemon; the mode stays 0600. \
            With --smarttap --collector-id N --key-version V it writes a Smart Tap collector key \
            to DIR/smarttap-N-vV.pem instead and prints the public key (PEM) and key version to \
            register in Google's console, and the [smarttap] lines for passtapd.toml. \
            Exit codes: 0 written, 64 usage (bad pass type id, collector id, key version or --owner), 67 no such user or \
            group, 73 the file exists or cannot be created, 77 not permitted to give it away \
            (only root may; nothing is left behind).
            """)

    @Option(name: .customLong("pass-type-id"), help: ArgumentHelp("The pass's passTypeIdentifier, e.g. pass.com.example.loyalty.", valueName: "id"))
    var passTypeID: String?

    @Flag(name: .customLong("smarttap"), help: "Make a Google Smart Tap collector key instead of a VAS merchant key.")
    var smartTap = false

    @Option(name: .customLong("collector-id"), help: ArgumentHelp("With --smarttap: the collector id Google's console gave, e.g. 20180608.", valueName: "n"))
    var collectorID: UInt32?

    @Option(name: .customLong("key-version"), help: ArgumentHelp("With --smarttap: the version to register this key under, e.g. 1 (a new one for each rotation).", valueName: "v"))
    var keyVersion: UInt32?

    @Option(help: ArgumentHelp("Folder for the key file (created with mode 0700 if missing).", valueName: "dir"))
    var out: String

    @Option(help: "PEM format of the private key: sec1 (EC PRIVATE KEY, what most readers load) or pkcs8 (PRIVATE KEY).")
    var format: MerchantKeyFormat = .sec1

    @Option(help: ArgumentHelp("Give the key file to this user (and group; default: the user's primary group). Needs root.", valueName: "user[:group]"))
    var owner: String?

    @Flag(help: "Print one JSON object (path, key_id, encryption_public_key, pass_type_id, format, owner; with --smarttap: path, collector_id, key_version, public_key_pem, format, owner) instead of text.")
    var json = false

    func validate() throws {
        if smartTap { return try validateSmartTap() }
        guard collectorID == nil, keyVersion == nil else {
            throw ValidationError("--collector-id and --key-version go with --smarttap")
        }
        guard let passTypeID else { throw ValidationError("--pass-type-id is required (or --smarttap for a Smart Tap collector key)") }
        do {
            _ = try PassTypeIdentifier(passTypeID)
        } catch {
            throw ValidationError("--pass-type-id: \(error)")
        }
        guard !passTypeID.contains("/"), !passTypeID.hasPrefix(".") else {
            throw ValidationError("--pass-type-id names the key file, so it must not contain '/' nor start with '.'")
        }
    }

    func run() throws {
        if smartTap { return try runSmartTap() }
        guard let passTypeID else { return }
        let key = MerchantKey.generate()
        let (path, keyOwner) = try KeyTools.writeNewFile(
            named: "\(passTypeID).pem", in: out, owner: owner, kind: "merchant key",
            ifItExists: "for another key of this pass give another --out (a dated folder, say)"
        ) { path throws(MerchantKeyError) in try key.write(toFile: path, format: format) }
        let made = Made(
            path: path, keyID: key.keyID.hex, encryptionPublicKey: key.compressedPublicKeySPKIBase64,
            passTypeID: passTypeID, format: format.rawValue, owner: keyOwner?.description)
        if json { return try KeyTools.json(made) }
        let ownership = keyOwner.map { ", owner \($0)" } ?? ""
        print("""
            Wrote a new \(format.rawValue) P-256 key for \(passTypeID) to \(path) (mode 0600\(ownership)).
            Keep it secret: back it up encrypted, give passtapd read access only (0600 root if passtapd runs as root, else chown root:passtapd, chmod 0640; never the socket's group).

            key id: \(made.keyID)

            pass.json (message: what the phone sends, at most 64 bytes, e.g. the member number):
              "nfc": {"message": "...", "encryptionPublicKey": "\(made.encryptionPublicKey)"}

            passtapd.toml:
              [[vas.merchants]]
              pass_type_id = \(KeyTools.tomlString(passTypeID))
              keys = [\(KeyTools.tomlString(path))]
            """)
    }

    /// What `--json` prints.
    struct Made: Encodable {
        let path: String
        let keyID: String
        let encryptionPublicKey: String
        let passTypeID: String
        let format: String
        /// `user:group` from --owner; absent without it.
        let owner: String?

        enum CodingKeys: String, CodingKey {
            case path, format, owner
            case keyID = "key_id"
            case encryptionPublicKey = "encryption_public_key"
            case passTypeID = "pass_type_id"
        }
    }
}
