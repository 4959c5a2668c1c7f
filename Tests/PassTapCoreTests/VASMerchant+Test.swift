import PassTapCore
import VAS

extension VASMerchant {
    /// A full-VAS merchant with in-memory keys.
    static func test(_ passTypeID: String, keys: [MerchantKey]) -> Self {
        try! VASMerchant(
            passTypeIdentifier: PassTypeIdentifier(passTypeID), url: nil, filter: nil, keys: keys,
            keyPaths: keys.map { "/keys/\($0.keyID.hex).pem" })
    }
}
