@preconcurrency public import Crypto
public import Wallets

/// The merchant's Smart Tap identity: the collector id Google assigned, the version of the key
/// registered for it in the Google Pay & Wallet console, and that P-256 key, which signs every
/// NEGOTIATE SECURE CHANNEL (docs/smarttap.md, "The protocol as implemented").
///
/// ``description`` and the mirror are redacted: the key never reaches a log or the socket. Two
/// collectors are equal when id, version and public key are.
public struct SmartTapCollector: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The collector id (`cld`), a number Google assigns (usually 8 digits).
    public let collectorID: UInt32
    /// The version of the key, as registered with Google (`cpr`'s key version).
    public let keyVersion: UInt32
    let key: P256.Signing.PrivateKey

    /// A collector with this id, key version and signing key.
    public init(collectorID: UInt32, keyVersion: UInt32, key: P256.Signing.PrivateKey) {
        self.collectorID = collectorID
        self.keyVersion = keyVersion
        self.key = key
    }

    /// Loads the key file at `path` as VAS merchant keys are loaded: `policy` judges its owner and
    /// permissions first (``MerchantKeyFilePolicy``), then SEC1 or PKCS#8 PEM, DER or a 64-digit
    /// hex scalar are accepted. Errors name the path and the reason, never key bytes; every buffer
    /// that held key bytes is zeroed.
    public static func load(
        path: String, collectorID: UInt32, keyVersion: UInt32, policy: MerchantKeyFilePolicy = MerchantKeyFilePolicy()
    ) throws(MerchantKeyError) -> SmartTapCollector {
        var bytes = try KeyFile.readChecked(path: path, limit: MerchantKeyDecoder.maximumFileSize, policy: policy)
        defer { SecretBytes.zero(&bytes) }
        return try SmartTapCollector(collectorID: collectorID, keyVersion: keyVersion, keyFileContents: bytes, path: path)
    }

    /// Decodes a key file's contents without any permission check (`path` only labels errors).
    public init(collectorID: UInt32, keyVersion: UInt32, keyFileContents bytes: [UInt8], path: String = "<memory>") throws(MerchantKeyError) {
        var scalar = try MerchantKeyDecoder.scalar(from: bytes, path: path)
        defer { SecretBytes.zero(&scalar) }
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) else {
            throw MerchantKeyError(
                .invalidScalar, path: path,
                "the private scalar is not a valid P-256 key; make a new one with `passtap keygen --smarttap`"
            )
        }
        self.init(collectorID: collectorID, keyVersion: keyVersion, key: key)
    }

    /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`, SubjectPublicKeyInfo), the form
    /// Google's console asks for with the key version.
    public var publicKeyPEM: String { key.publicKey.pemRepresentation }

    /// The collector id as the 4 big-endian bytes the `cld` record and the signature carry.
    var collectorIDBytes: [UInt8] { collectorID.bigEndianBytes }

    public static func == (lhs: SmartTapCollector, rhs: SmartTapCollector) -> Bool {
        lhs.collectorID == rhs.collectorID && lhs.keyVersion == rhs.keyVersion
            && lhs.key.publicKey.rawRepresentation == rhs.key.publicKey.rawRepresentation
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(collectorID)
        hasher.combine(keyVersion)
        hasher.combine(key.publicKey.rawRepresentation)
    }

    public var description: String { "SmartTapCollector(id: \(collectorID), key version: \(keyVersion), <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["collectorID": collectorID, "keyVersion": keyVersion], displayStyle: .struct)
    }
}

extension UInt32 {
    /// The 4 big-endian bytes.
    var bigEndianBytes: [UInt8] { [UInt8(self >> 24), UInt8(self >> 16 & 0xFF), UInt8(self >> 8 & 0xFF), UInt8(self & 0xFF)] }
}
