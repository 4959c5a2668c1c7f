extension MerchantKey {
    /// Loads a key file: refuses it unless ``MerchantKeyFilePolicy`` passes, then accepts SEC1 PEM
    /// (with or without a leading EC PARAMETERS block), PKCS#8 PEM, DER (SEC1 or PKCS#8) or a
    /// 64-digit hex scalar. Errors name `path` and the reason, never key bytes.
    public init(contentsOfFile path: String) throws(MerchantKeyError) {
        let bytes = try KeyFile.readChecked(path: path, limit: MerchantKeyDecoder.maximumFileSize)
        try self.init(keyFileContents: bytes, path: path)
    }

    /// Decodes a key file's contents without any permission check (`path` only labels errors).
    public init(keyFileContents bytes: [UInt8], path: String = "<memory>") throws(MerchantKeyError) {
        let scalar = try MerchantKeyDecoder.scalar(from: bytes, path: path)
        try self.init(scalar: scalar, path: path)
    }
}
