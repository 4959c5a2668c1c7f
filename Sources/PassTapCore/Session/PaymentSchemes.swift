public import ISO7816

/// The registered application provider identifiers (RIDs, the first five bytes of an AID, ISO/IEC
/// 7816-5) of payment schemes. An application under one of them is a payment application, whether
/// the PPSE directory listed it or `[session] aids` did, and is reported by AID, label and
/// priority only.
public enum PaymentSchemes {
    /// The RIDs, hex, with their scheme.
    public static let rids: [String: String] = [
        "A000000003": "Visa",
        "A000000004": "Mastercard",
        "A000000025": "American Express",
        "A000000042": "Cartes Bancaires",
        "A000000065": "JCB",
        "A000000152": "Discover / Diners Club",
        "A000000277": "Interac",
        "A000000333": "UnionPay",
        "A000000359": "girocard",
        "A000000384": "eftpos",
        "A000000524": "RuPay",
        "A000000658": "Mir",
    ]

    /// Whether `aid` belongs to a payment scheme.
    public static func contains(_ aid: AID) -> Bool {
        rids[Array(aid.bytes.prefix(5)).hexString] != nil
    }
}
