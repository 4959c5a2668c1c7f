public import ISO7816

/// The payment applications a card lists in its Proximity Payment System Environment
/// (SELECT `2PAY.SYS.DDF01`, EMV Book B): `6F { 84, A5 { BF0C { 61 { 4F AID, 50 label, 87 priority } ... } } }`.
///
/// Only the AID, label and priority are kept: nothing here, nor anything a session does after,
/// reads card numbers, track or expiry data.
///
/// Bounded whatever the card lists: each AID once (the first, by priority, of any repeats), at
/// most ``maximumApplications`` of them (the rest are counted in ``omitted``, and neither
/// published nor selected), labels printable and at most ``maximumLabelBytes`` long.
public struct PaymentDirectory: Sendable, Hashable, Codable {
    /// The most applications kept from one directory, and so selected in one tap.
    public static let maximumApplications = 8
    /// The most label bytes kept (EMV's Application Label, tag `50`, is 1 to 16 characters).
    public static let maximumLabelBytes = 16

    /// One directory entry.
    public struct Application: Sendable, Hashable, Codable {
        /// The application's AID.
        public var aid: AID
        /// Its label (tag `50`), when sent and printable; cut at ``PaymentDirectory/maximumLabelBytes``
        /// and marked `...[N bytes]`.
        @Nullable public var label: String?
        /// Its priority (tag `87`, low nibble: 1 is first); `nil` when not given.
        @Nullable public var priority: Int?

        /// Creates an entry.
        public init(aid: AID, label: String?, priority: Int?) {
            self.aid = aid
            self.label = label
            self.priority = priority
        }
    }

    /// `2PAY.SYS.DDF01`.
    public static let aid: AID = {
        guard let aid = try? AID(bytes: Array("2PAY.SYS.DDF01".utf8)) else {
            preconditionFailure("2PAY.SYS.DDF01 is 14 bytes, a valid AID length")
        }
        return aid
    }()

    /// Whether the card answered SELECT PPSE with `90 00`.
    public var offered: Bool
    /// The listed applications in priority order (unprioritised ones last, in card order), each
    /// AID once, at most ``maximumApplications``.
    public var applications: [Application]
    /// How many more distinct applications the directory listed beyond ``maximumApplications``:
    /// neither published nor selected.
    public var omitted: Int

    /// Creates a directory record.
    public init(offered: Bool, applications: [Application], omitted: Int = 0) {
        self.offered = offered
        self.applications = applications
        self.omitted = omitted
    }

    private enum CodingKeys: String, CodingKey { case offered, applications, omitted }

    /// Reads a directory record; `omitted` is 0 when absent (a daemon before it was added).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        offered = try c.decode(Bool.self, forKey: .offered)
        applications = try c.decode([Application].self, forKey: .applications)
        omitted = try c.decodeIfPresent(Int.self, forKey: .omitted) ?? 0
    }

    /// Reads the applications out of a PPSE FCI; entries without a valid AID are skipped, and an
    /// FCI that does not parse lists none.
    public init(fci bytes: [UInt8]) {
        var found: [Application] = []
        let limits = TLVLimits(maxDepth: 6, maxNodes: 256)
        if let nodes = try? BERTLVParser.parse(bytes, limits: limits),
            let directory = nodes.first(0x6F)?.first(0xA5)?.first(0xBF0C)
        {
            for entry in directory.children ?? [] where entry.tag == 0x61 {
                guard let aidNode = entry.first(0x4F), let aid = try? AID(bytes: aidNode.value) else { continue }
                let label = entry.first(0x50).flatMap { node in
                    node.value.allSatisfy { (0x20...0x7E).contains($0) }
                        ? CardText.printable(node.value, maxBytes: Self.maximumLabelBytes) : nil
                }
                let priority = entry.first(0x87).flatMap { $0.value.count == 1 && $0.value[0] & 0x0F != 0 ? Int($0.value[0] & 0x0F) : nil }
                found.append(Application(aid: aid, label: label, priority: priority))
            }
        }
        let ranked = found.enumerated().sorted { lhs, rhs in
            switch (lhs.element.priority, rhs.element.priority) {
            case let (l?, r?) where l != r: return l < r
            case (.some, nil): return true
            case (nil, .some): return false
            default: return lhs.offset < rhs.offset
            }
        }
        var seen = Set<AID>()
        let distinct = ranked.map(\.element).filter { seen.insert($0.aid).inserted }
        self.init(
            offered: true, applications: Array(distinct.prefix(Self.maximumApplications)),
            omitted: max(0, distinct.count - Self.maximumApplications))
    }
}
