extension ContactlessATR {
    /// What an ATR says about the card behind it: ISO-DEP, a PC/SC part 3 storage card, or
    /// anything else.
    public enum Kind: Hashable, Sendable {
        /// `3B 8n 80 01 … TCK` that is not a storage card: an ISO 14443-4 card (Type A from its ATS,
        /// Type B from its ATQB), which speaks ISO 7816-4 APDUs. Carries its historical bytes.
        case isoDep(historicalBytes: [UInt8])
        /// `3B 8F 80 01 80 4F 0C A0 00 00 03 06 SS NN NN …`: a storage card (MIFARE Classic,
        /// Ultralight, ISO 15693 tags…). It speaks no APDUs; only the reader's `FF` pseudo-APDUs.
        case storageCard(StorageCard)
        /// Not a PC/SC part 3 contactless ATR (or one with a wrong TCK or length): a contact card or
        /// a reader's own format, taken to be an ISO 7816 card that speaks APDUs.
        case other

        /// Reads an ATR. Never fails: bytes that are not a well-formed part 3 ATR are `.other`.
        ///
        /// A part 3 ATR is exactly TS T0 TD1 TD2, the n historical bytes T0 announces, and a TCK
        /// that makes the XOR of T0 to TCK zero. A storage card's 4 RFU bytes are not checked: real
        /// readers put data there (pcsc-tools lists `… 03 06 07 43 44 60 02 01 E4 EF`).
        public init(atr: [UInt8]) {
            guard atr.count >= 5,
                atr[0] == ContactlessATR.initialCharacter,
                atr[1] & 0xF0 == 0x80,
                Array(atr[2...3]) == ContactlessATR.interfaceBytes
            else {
                self = .other
                return
            }
            let count = Int(atr[1] & 0x0F)
            guard atr.count == 4 + count + 1, atr.dropFirst().reduce(0, ^) == 0 else {
                self = .other
                return
            }
            let historical = Array(atr[4..<(4 + count)])
            if count == ContactlessATR.maximumHistoricalBytes,
                historical.starts(with: ContactlessATR.storageCardPrefix)
            {
                let cardName = UInt16(historical[9]) << 8 | UInt16(historical[10])
                self = .storageCard(StorageCard(standard: historical[8], cardName: cardName))
            } else {
                self = .isoDep(historicalBytes: historical)
            }
        }

        /// Whether the card takes ISO 7816-4 APDUs (SELECT and so on): true for `.isoDep` and
        /// `.other`, false for a storage card.
        public var speaksISO7816: Bool {
            switch self {
            case .isoDep, .other: return true
            case .storageCard: return false
            }
        }
    }
}
