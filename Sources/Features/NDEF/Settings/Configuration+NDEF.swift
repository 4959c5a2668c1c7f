public import PassTapCore

extension Configuration {
    /// `[ndef]`: reading NFC Forum tags' NDEF messages (`docs/ndef.md`).
    public struct NDEF: FeatureSettings {
        /// `enabled`: read a Type 2 memory tag's message (no APDU), and a Type 4 tag's after the
        /// AID list and the wallets found nothing.
        public var enabled: Bool = true

        /// The defaults of the shipped config.
        public init() {}
    }

    /// `[ndef]`, kept in ``PassTapCore/Configuration/features`` (its defaults when the file has no
    /// such table).
    public var ndef: NDEF {
        get { self[NDEF.self] }
        set { self[NDEF.self] = newValue }
    }
}
