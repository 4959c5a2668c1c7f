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

    /// EMV data objects that carry card numbers, track data, names, dates or account identifiers
    /// (EMV Book 3 Annex A). A compliant FCI holds none of them, but issuer discretionary data
    /// (`BF0C`) is the card's choice, so they are removed wherever they appear.
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
        0x5F53,  // International Bank Account Number (IBAN)
        0x5F54,  // Bank Identifier Code (BIC)
        0x42,  // Issuer Identification Number (IIN)
    ]

    /// The largest FCI published, in bytes after redaction. A real one is well under 256 (a short
    /// APDU's answer); a card that sends more (8 KB of empty TLVs would be a 113 KB JSON tree) has
    /// it omitted, with the reason, so a `read.result` line stays under 64 KiB.
    public static let maximumPublishedBytes = 1024

    /// Why a selected application's FCI is not published (`aid.fci_omitted`).
    public struct Omitted: Error, Hashable, Sendable {
        /// For a person: what was wrong with the FCI.
        public var reason: String

        /// An omission for `reason`.
        public init(reason: String) {
            self.reason = reason
        }
    }

    /// The tags a payment application's FCI keeps.
    package static let paymentApplicationTags: Set<TLVTag> = [0x6F, 0xA5, 0x84, 0x50, 0x87]

    /// Records FCI bytes for publication; `nil` when ``forPublication(_:scope:)`` omits them.
    public init?(bytes: [UInt8], scope: Scope = .withoutCardData) {
        guard case .success(let record) = Self.forPublication(bytes, scope: scope) else { return nil }
        self = record
    }

    /// FCI bytes as a session publishes them: hex and TLV tree, less what `scope` withholds. When
    /// something was removed, `hex` is the re-encoded remainder and `redacted` lists the removed
    /// tags.
    ///
    /// Omitted, with the reason: bytes that are not valid BER-TLV (what cannot be parsed cannot be
    /// checked for card data), and a remainder over ``maximumPublishedBytes``.
    public static func forPublication(_ bytes: [UInt8], scope: Scope = .withoutCardData) -> Result<FCIRecord, Omitted> {
        let nodes: [TLVNode]
        do {
            nodes = try BERTLVParser.parse(bytes)
        } catch {
            return .failure(Omitted(reason: "the FCI (\(bytes.count) bytes) is not valid BER-TLV (\(error)), so it cannot be checked for card data"))
        }
        var removed: [TLVTag] = []
        let kept = filter(nodes, scope: scope, removed: &removed)
        let remainder = removed.isEmpty ? bytes : kept.flatMap(BERTLVWriter.encode)
        guard remainder.count <= maximumPublishedBytes else {
            return .failure(Omitted(reason: "the FCI is \(remainder.count) bytes\(removed.isEmpty ? "" : " after redaction"), over the \(maximumPublishedBytes) published"))
        }
        guard !removed.isEmpty else {
            return .success(FCIRecord(hex: bytes.hexString, tlv: nodes.map(TLVRecord.init)))
        }
        var seen = Set<TLVTag>()
        let names = removed.filter { seen.insert($0).inserted }.map(\.hex)
        return .success(FCIRecord(hex: remainder.hexString, tlv: kept.map(TLVRecord.init), redacted: names))
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
