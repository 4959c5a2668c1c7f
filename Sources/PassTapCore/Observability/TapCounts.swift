/// How many taps a reader has had since it appeared (or since the daemon started), by
/// ``TapOutcome``: the `taps` member of each reader in `readers.list` and `status`.
///
/// On the wire every outcome is present, zero or not:
/// `{"pass": 3, "application": 1, "tag": 2, "nothing": 0, "memory_card": 0, "error": 1}`.
public struct TapCounts: Sendable, Hashable {
    private var counts: [TapOutcome: Int]

    /// Counts, all zero unless given.
    public init(_ counts: [TapOutcome: Int] = [:]) {
        self.counts = counts
    }

    /// The taps that came to `outcome`.
    public subscript(outcome: TapOutcome) -> Int {
        get { counts[outcome, default: 0] }
        set { counts[outcome] = newValue }
    }

    /// Every tap, whatever it came to.
    public var total: Int { counts.values.reduce(0, +) }

    /// Equal when every outcome has the same count (an outcome left out counts as zero).
    public static func == (lhs: TapCounts, rhs: TapCounts) -> Bool {
        TapOutcome.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }

    public func hash(into hasher: inout Hasher) {
        for outcome in TapOutcome.allCases { hasher.combine(self[outcome]) }
    }
}

extension TapCounts: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ outcome: TapOutcome) { stringValue = outcome.rawValue }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for outcome in TapOutcome.allCases { try container.encode(self[outcome], forKey: Key(outcome)) }
    }

    /// Reads every outcome the object names; an outcome it leaves out (one a newer daemon added,
    /// or an older one lacked) is zero.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        counts = [:]
        for outcome in TapOutcome.allCases {
            counts[outcome] = try container.decodeIfPresent(Int.self, forKey: Key(outcome))
        }
    }
}
