import Wallets
extension MerchantKey {
    /// Loads a key file: refuses it unless `policy` passes (see ``MerchantKeyFilePolicy``), then
    /// accepts SEC1 PEM (with or without a leading EC PARAMETERS block), PKCS#8 PEM, DER (SEC1 or
    /// PKCS#8) or a 64-digit hex scalar. Errors name `path` and the reason, never key bytes.
    ///
    /// The file's bytes, and every buffer of key material decoded from them, are zeroed before
    /// this returns (``SecretBytes``); the key object keeps swift-crypto's own copy.
    /// - Parameter policy: who may own and read the file; by default the daemon's rules for this
    ///   process with no socket group (passtapd passes its socket's group).
    public init(contentsOfFile path: String, policy: MerchantKeyFilePolicy = MerchantKeyFilePolicy()) throws(MerchantKeyError) {
        var bytes = try KeyFile.readChecked(path: path, limit: MerchantKeyDecoder.maximumFileSize, policy: policy)
        defer { SecretBytes.zero(&bytes) }
        try self.init(keyFileContents: bytes, path: path)
    }

    /// Decodes a key file's contents without any permission check (`path` only labels errors).
    /// The decoded scalar and intermediate buffers are zeroed; `bytes` is the caller's to zero.
    public init(keyFileContents bytes: [UInt8], path: String = "<memory>") throws(MerchantKeyError) {
        var scalar = try MerchantKeyDecoder.scalar(from: bytes, path: path)
        defer { SecretBytes.zero(&scalar) }
        try self.init(scalar: scalar, path: path)
    }
}
