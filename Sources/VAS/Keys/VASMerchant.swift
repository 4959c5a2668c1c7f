/// One `[[vas.merchants]]` entry: the pass asked for, and the keys that decrypt it.
///
/// Equal when the pass, the request and the keys (by id and file) are; key material never
/// appears in its description.
public struct VASMerchant: Sendable, Hashable, CustomStringConvertible {
    /// `pass_type_id`.
    public let passTypeIdentifier: PassTypeIdentifier
    /// The GET VAS DATA request: full VAS with keys, URL-only without.
    public let request: VASMerchantRequest
    /// `keys`: the key files, in configured order.
    public let keyPaths: [String]
    /// Decrypts this merchant's cryptograms; `nil` for a URL-only merchant (no keys).
    public let decryptor: VASDecryptor?

    /// A merchant with loaded keys; `keys` empty means URL-only (then `url` must be set, which
    /// the config loader checks).
    public init(passTypeIdentifier: PassTypeIdentifier, url: String?, filter: [UInt8]?, keys: [MerchantKey], keyPaths: [String]) throws(VASCommandError) {
        self.passTypeIdentifier = passTypeIdentifier
        self.request = try VASMerchantRequest(passTypeIdentifier: keys.isEmpty ? nil : passTypeIdentifier, url: url, filter: filter)
        self.keyPaths = keyPaths
        self.decryptor = keys.isEmpty ? nil : VASDecryptor(passTypeIdentifier: passTypeIdentifier, keys: keys)
    }

    /// The key ids, in configured order.
    public var keyIDs: [VASKeyID] { decryptor?.keys.map(\.keyID) ?? [] }

    public var description: String {
        "\(passTypeIdentifier) (keys \(keyIDs.map(\.hex).joined(separator: ", ")))"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.passTypeIdentifier == rhs.passTypeIdentifier && lhs.request == rhs.request
            && lhs.keyPaths == rhs.keyPaths && lhs.keyIDs == rhs.keyIDs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(passTypeIdentifier)
        hasher.combine(keyPaths)
    }
}
