extension ContactlessATR {
    /// A storage card as its PC/SC part 3 ATR names it: the standard byte `SS` and the card name
    /// `NN NN`, both assigned by PC/SC part 3's supplemental document.
    public struct StorageCard: Hashable, Sendable, CustomStringConvertible {
        /// `SS`: the standard the card follows (03: ISO 14443 A part 3, 07: B part 3, 0B: ISO 15693 part 3).
        public let standard: UInt8
        /// `NN NN`: the card name (0001: MIFARE Classic 1K, 0003: MIFARE Ultralight…).
        public let cardName: UInt16

        /// A card from its two codes.
        public init(standard: UInt8, cardName: UInt16) {
            self.standard = standard
            self.cardName = cardName
        }

        /// The card's ATR (``ContactlessATR/storageCard(standard:cardName:)``).
        public var atr: [UInt8] { ContactlessATR.storageCard(standard: standard, cardName: cardName) }

        /// The card name in words, for logs, when it is one of the few we know; nil otherwise.
        public var name: String? { Self.names[cardName] }

        /// `"MIFARE Classic 1K (SS 03, NN 0001)"`, or the codes alone for a name we do not know.
        public var description: String {
            let codes = "SS " + [standard].hexString + ", NN " + [UInt8(cardName >> 8), UInt8(cardName & 0xFF)].hexString
            guard let name else { return "storage card (\(codes))" }
            return "\(name) (\(codes))"
        }

        // MIFARE card names.
        /// 0001.
        public static let mifareClassic1K: UInt16 = 0x0001
        /// 0002.
        public static let mifareClassic4K: UInt16 = 0x0002
        /// 0003: Ultralight; pcsc-tools notes readers also give it for an Ultralight C.
        public static let mifareUltralight: UInt16 = 0x0003
        /// 0026.
        public static let mifareMini: UInt16 = 0x0026
        /// 003A.
        public static let mifareUltralightC: UInt16 = 0x003A
        /// 003D.
        public static let mifareUltralightEV1: UInt16 = 0x003D

        /// For logging only; a small part of PC/SC part 3's supplemental document, as pcsc-tools'
        /// smartcard_list.txt quotes it ("as per PCSC std part3"). Not for deciding anything.
        static let names: [UInt16: String] = [
            0x0000: "card name not given",
            mifareClassic1K: "MIFARE Classic 1K",
            mifareClassic4K: "MIFARE Classic 4K",
            mifareUltralight: "MIFARE Ultralight",
            0x0014: "ICODE SLI",
            mifareMini: "MIFARE Mini",
            0x002F: "Jewel",
            0x0030: "Topaz NFC Tag",
            0x0036: "MIFARE Plus SL1 2K",
            0x0037: "MIFARE Plus SL1 4K",
            0x0038: "MIFARE Plus SL2 2K",
            0x0039: "MIFARE Plus SL2 4K",
            mifareUltralightC: "MIFARE Ultralight C",
            0x003B: "FeliCa",
            mifareUltralightEV1: "MIFARE Ultralight EV1",
        ]
    }
}
