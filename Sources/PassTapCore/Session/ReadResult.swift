public import ISO7816

/// The outcome of one tap, published as the `read.result` event: the card as it arrived, whether
/// it spoke ISO-DEP, and the session's outcome (none for a memory card).
///
/// On the wire the card's members come first, flattened: `atr, uid, atqa, sak, ats, target, aid,
/// vas, ndef, smarttap, error, duration_ms`, every one present (`null` when absent).
public struct ReadResult: Sendable, Hashable {
    /// The card, as `card.inserted` published it.
    public var card: CardInfo
    /// ISO-DEP (the APDU session ran) or a memory card (identity only).
    public var target: TargetKind
    /// What the APDU session found; `nil` when none ran (a memory card).
    public var session: SessionOutcome?
    /// How long the APDU session took, from the plan's start to its outcome (the span
    /// `passtap_session_duration_seconds` counts), in milliseconds rounded to the microsecond;
    /// `nil` when none ran (a memory card).
    public var durationMilliseconds: Double?

    /// A memory card's NDEF record (Type 2, read without APDUs); a Type 4 one is the session's.
    private var memoryNDEF: NDEFReadResult?

    /// The result of a tap: `session` is the APDU session's outcome, `nil` for a memory card, and
    /// `duration` the time it took; `ndef` is a memory card's Type 2 NDEF record.
    public init(card: CardInfo, target: TargetKind, session: SessionOutcome?, duration: Duration? = nil, ndef: NDEFReadResult? = nil) {
        self.card = card
        self.target = target
        self.session = session
        self.durationMilliseconds = duration.map(Self.milliseconds)
        self.memoryNDEF = ndef
    }

    /// `duration` in milliseconds, rounded to three decimals (the microsecond).
    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        let microseconds = Double(seconds) * 1_000_000 + (Double(attoseconds) / 1_000_000_000_000).rounded()
        return microseconds / 1000
    }

    /// The SELECT-by-AID part of the session; `nil` when no APDU session ran.
    public var aid: AIDSessionResult? { session?.aid }
    /// The Apple VAS part; `nil` when VAS is disabled or no APDU session ran.
    public var vas: VASSessionResult? { session?.vas }
    /// The tag's NDEF record: a memory card's Type 2 read, or the session's Type 4 read; `nil`
    /// when none was looked for.
    public var ndef: NDEFReadResult? {
        get { session?.ndef ?? memoryNDEF }
        set {
            if session != nil {
                session?.ndef = newValue
            } else {
                memoryNDEF = newValue
            }
        }
    }
    /// The Google Smart Tap part; `nil` when Smart Tap is disabled, the phone is not Android, or
    /// no APDU session ran.
    public var smartTap: SmartTapSessionResult? { session?.smartTap }
    /// The transport failure that cut the session short, if any. Per-merchant VAS outcomes are in
    /// `vas.entries`, not here.
    public var error: ReadError? { session?.error }

    /// This result as the `vas.read` that asked for `merchants` gets it (`nil`: every configured
    /// merchant, the whole result): its `vas` entries narrowed to those merchants
    /// (``VASSessionResult/narrowed(to:)``); the card, the AIDs, Smart Tap and NDEF as they are.
    public func answering(merchants: Set<String>?) -> ReadResult {
        guard let merchants, let vas else { return self }
        var answer = self
        answer.session?.vas = vas.narrowed(to: merchants)
        return answer
    }
}

extension ReadResult: Codable {
    private enum CodingKeys: String, CodingKey { case target, aid, vas, ndef, smartTap = "smarttap", error, durationMilliseconds = "duration_ms" }

    public func encode(to encoder: any Encoder) throws {
        try card.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(target, forKey: .target)
        try container.encode(Nullable(wrappedValue: aid), forKey: .aid)
        try container.encode(Nullable(wrappedValue: vas), forKey: .vas)
        try container.encode(Nullable(wrappedValue: ndef), forKey: .ndef)
        try container.encode(Nullable(wrappedValue: smartTap), forKey: .smartTap)
        try container.encode(Nullable(wrappedValue: error), forKey: .error)
        try container.encode(Nullable(wrappedValue: durationMilliseconds), forKey: .durationMilliseconds)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        card = try CardInfo(from: decoder)
        target = try container.decodeIfPresent(TargetKind.self, forKey: .target) ?? .isoDep
        session = try container.decodeIfPresent(AIDSessionResult.self, forKey: .aid).map { aid in
            SessionOutcome(
                aid: aid, vas: try container.decodeIfPresent(VASSessionResult.self, forKey: .vas),
                ndef: try container.decodeIfPresent(NDEFReadResult.self, forKey: .ndef),
                smartTap: try container.decodeIfPresent(SmartTapSessionResult.self, forKey: .smartTap),
                error: try container.decodeIfPresent(ReadError.self, forKey: .error))
        }
        if session == nil { memoryNDEF = try container.decodeIfPresent(NDEFReadResult.self, forKey: .ndef) }
        durationMilliseconds = try container.decodeIfPresent(Double.self, forKey: .durationMilliseconds)
    }
}

/// The SELECT-by-AID part of a session: every attempt in configured order, and the winner.
public struct AIDSessionResult: Sendable, Hashable, Codable {
    /// One SELECT sent, and the status word it got (`nil` when the exchange itself failed).
    public struct Attempt: Sendable, Hashable, Codable {
        /// The AID.
        public var aid: AID
        /// The final status word (`9000`, `6A82`...), or `nil` on a transport failure.
        @Nullable public var sw: StatusWord?

        /// Creates an attempt record.
        public init(aid: AID, sw: StatusWord?) {
            self.aid = aid
            self.sw = sw
        }
    }

    /// The first AID whose SELECT succeeded; `nil` when none did.
    @Nullable public var selected: AID?
    /// The selected application's FCI; `nil` when none was selected, or when it is omitted.
    @Nullable public var fci: FCIRecord?
    /// Why the selected application's FCI is not published (not BER-TLV, or over
    /// ``FCIRecord/maximumPublishedBytes``); `nil` otherwise.
    @Nullable public var fciOmitted: String?
    /// Every SELECT sent, in order (PPSE included).
    public var attempts: [Attempt]
    /// The payment directory, when `[session] ppse` is on; `nil` otherwise.
    @Nullable public var ppse: PaymentDirectory?

    private enum CodingKeys: String, CodingKey {
        case selected, fci, fciOmitted = "fci_omitted", attempts, ppse
    }

    /// Creates a record of the SELECT-by-AID part of a session.
    public init(
        selected: AID? = nil, fci: FCIRecord? = nil, fciOmitted: String? = nil, attempts: [Attempt] = [], ppse: PaymentDirectory? = nil
    ) {
        self.selected = selected
        self.fci = fci
        self.fciOmitted = fciOmitted
        self.attempts = attempts
        self.ppse = ppse
    }
}
