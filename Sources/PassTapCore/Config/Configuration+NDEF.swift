extension Configuration {
    /// `[ndef]`: reading NFC Forum tags' NDEF messages (`docs/ndef.md`).
    public struct NDEF: Sendable, Hashable {
        /// `enabled`: read a Type 2 memory tag's message (no APDU), and a Type 4 tag's after the
        /// AID list and the wallets found nothing.
        public var enabled: Bool = true

        /// The defaults of the shipped config.
        public init() {}
    }
}
