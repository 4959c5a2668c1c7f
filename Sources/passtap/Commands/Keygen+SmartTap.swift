import ArgumentParser
import SmartTap
import Wallets
import VAS

/// `passtap keygen --smarttap --collector-id N --key-version V --out DIR`: a Google Smart Tap
/// collector key (P-256, the curve of Smart Tap's signature), offline.
extension Keygen {
    /// The collector id and key version both name 4 bytes on the wire, and 0 is none
    /// (docs/smarttap.md, "Keys and rotation").
    func validateSmartTap() throws {
        guard passTypeID == nil else { throw ValidationError("--pass-type-id is for VAS merchant keys; leave it out with --smarttap") }
        guard let collectorID, collectorID > 0 else { throw ValidationError("--smarttap needs --collector-id, the collector id from Google's console (above 0)") }
        guard let keyVersion, keyVersion > 0 else { throw ValidationError("--smarttap needs --key-version, the version to register this key under (above 0)") }
    }

    /// Writes the key to `DIR/smarttap-N-vV.pem` (mode 0600, never over an existing file) and
    /// prints the public key (PEM) and version for Google's console and the `[smarttap]` lines.
    /// Private key material is never printed.
    func runSmartTap() throws {
        guard let collectorID, let keyVersion else { return }
        let key = MerchantKey.generate()
        // The public key as passtapd will derive it from the file: through the collector it loads.
        var contents = Array(key.privateKeyPEM(format: format).utf8)
        defer { SecretBytes.zero(&contents) }
        let publicKeyPEM: String
        do {
            publicKeyPEM = try SmartTapCollector(collectorID: collectorID, keyVersion: keyVersion, keyFileContents: contents).publicKeyPEM + "\n"
        } catch {
            throw KeyTools.exit(error)
        }
        let (path, keyOwner) = try KeyTools.writeNewFile(
            named: "smarttap-\(collectorID)-v\(keyVersion).pem", in: out, owner: owner, kind: "collector key",
            ifItExists: "to rotate, give the new key another --key-version (and register it in Google's console)"
        ) { path throws(MerchantKeyError) in try key.write(toFile: path, format: format) }
        let made = SmartTapMade(
            path: path, collectorID: collectorID, keyVersion: keyVersion, publicKeyPEM: publicKeyPEM,
            format: format.rawValue, owner: keyOwner?.description)
        if json { return try KeyTools.json(made) }
        let ownership = keyOwner.map { ", owner \($0)" } ?? ""
        print("""
            Wrote a new \(format.rawValue) P-256 Smart Tap key for collector \(collectorID), key version \(keyVersion), to \(path) (mode 0600\(ownership)).
            Keep it secret: back it up encrypted, give passtapd read access only (0600 root if passtapd runs as root, else chown root:passtapd, chmod 0640; never the socket's group).

            key version: \(keyVersion)

            Google Pay & Wallet Console (Smart Tap authentication key): register this public key with key version \(keyVersion):
            \(made.publicKeyPEM)
            passtapd.toml:
              [smarttap]
              enabled = true
              collector_id = \(collectorID)
              key_version = \(keyVersion)
              key = \(KeyTools.tomlString(path))
            """)
    }

    /// What `--smarttap --json` prints.
    struct SmartTapMade: Encodable {
        let path: String
        let collectorID: UInt32
        let keyVersion: UInt32
        let publicKeyPEM: String
        let format: String
        /// `user:group` from --owner; absent without it.
        let owner: String?

        enum CodingKeys: String, CodingKey {
            case path, format, owner
            case collectorID = "collector_id"
            case keyVersion = "key_version"
            case publicKeyPEM = "public_key_pem"
        }
    }
}
