public import ISO7816

extension FCIRecord {
    /// Which parts of a selected application's FCI a session may publish.
    public enum Scope: Sendable {
        /// Everything but card data (``FCIRecord/cardDataTags``): for other applications.
        case withoutCardData
        /// Only the AID (`84`), label (`50`) and priority (`87`) inside `6F`/`A5`: for a payment
        /// application (listed by the PPSE directory, or under a ``PaymentSchemes`` RID), which is
        /// reported by AID, label and priority only.
        case paymentApplication
    }

    /// EMV data objects that carry card numbers, track data, names or dates (EMV Book 3 Annex A).
    /// A compliant FCI holds none of them, but issuer discretionary data (`BF0C`) is the card's
    /// choice, so they are removed wherever they appear.
    public static let cardDataTags: Set<TLVTag> = [
        0x5A,  // Application PAN
        0x56,  // Track 1 data
        0x57,  // Track 2 equivalent data
        0x9F6B,  // Track 2 data
        0x9F1F,  // Track 1 discretionary data
        0x9F20,  // Track 2 discretionary data
        0x5F20,  // Cardholder name
        0x9F0B,  // Cardholder name extended
        0x5F24,  // Application expiration date
        0x5F25,  // Application effective date
        0x5F34,  // PAN sequence number
        0x5F30,  // Service code (from the track data)
    ]

    /// The tags a payment application's FCI keeps.
    static let paymentApplicationTags: Set<TLVTag> = [0x6F, 0xA5, 0x84, 0x50, 0x87]

    /// Records FCI bytes for publication: hex and TLV tree, less what `scope` withholds. When
    /// something was removed, `hex` is the re-encoded remainder and `redacted` lists the removed
    /// tags. `nil` when the bytes are not valid BER-TLV: what cannot be parsed cannot be checked
    /// for card data, so it is not published.
    public init?(bytes: [UInt8], scope: Scope = .withoutCardData) {
        guard let nodes = try? BERTLVParser.parse(bytes) else { return nil }
        var removed: [TLVTag] = []
        let kept = Self.filter(nodes, scope: scope, removed: &removed)
        guard !removed.isEmpty else {
            self.init(hex: bytes.hexString, tlv: nodes.map(TLVRecord.init))
            return
        }
        var seen = Set<TLVTag>()
        let names = removed.filter { seen.insert($0).inserted }.map(\.hex)
        self.init(hex: kept.flatMap(BERTLVWriter.encode).hexString, tlv: kept.map(TLVRecord.init), redacted: names)
    }

    private static func filter(_ nodes: [TLVNode], scope: Scope, removed: inout [TLVTag]) -> [TLVNode] {
        var kept: [TLVNode] = []
        for var node in nodes {
            let allowed: Bool
            switch scope {
            case .withoutCardData: allowed = !cardDataTags.contains(node.tag)
            case .paymentApplication: allowed = paymentApplicationTags.contains(node.tag)
            }
            guard allowed else {
                removed.append(node.tag)
                continue
            }
            if let children = node.children {
                let filtered = filter(children, scope: scope, removed: &removed)
                if filtered != children {
                    node.children = filtered
                    node.value = filtered.flatMap(BERTLVWriter.encode)
                }
            }
            kept.append(node)
        }
        return kept
    }
}

extension TLVRecord {
    /// The JSON form of a parsed BER-TLV node.
    public init(_ node: TLVNode) {
        if let children = node.children {
            self.init(tag: node.tag.hex, value: nil, children: children.map(TLVRecord.init))
        } else {
            self.init(tag: node.tag.hex, value: node.value.hexString, children: nil)
        }
    }
}
