/// The outcome of one tap's session, published as the `read.result` event.
public struct ReadResult: Sendable, Hashable, Codable {
    /// The card's ATR, hex.
    public var atr: String
    /// The card's UID, hex, or `nil` when the reader does not give one.
    public var uid: String?
    /// ISO-DEP (the APDU session ran) or a memory card (identity only).
    public var target: TargetKind
    /// The SELECT-by-AID part of the session; `nil` when no APDU session ran.
    public var aid: AIDSessionResult?
    /// The Apple VAS part; `nil` when VAS is disabled.
    public var vas: VASSessionResult?
    /// `nil` when the session ran to its end; else the transport failure that cut it short.
    /// Per-merchant VAS outcomes are in `vas.entries`, not here.
    public var error: ReadError?

    /// Creates a result.
    public init(atr: String, uid: String?, target: TargetKind = .isoDep, aid: AIDSessionResult?, vas: VASSessionResult? = nil, error: ReadError?) {
        self.atr = atr
        self.uid = uid
        self.target = target
        self.aid = aid
        self.vas = vas
        self.error = error
    }

    /// The result of a tap: `outcome` is the APDU session's, `nil` for a memory card.
    public init(card: CardInfo, target: TargetKind, outcome: SessionOutcome?) {
        self.init(atr: card.atr, uid: card.uid, target: target, aid: outcome?.aid, vas: outcome?.vas, error: outcome?.error)
    }

    private enum CodingKeys: String, CodingKey { case atr, uid, target, aid, vas, error }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(atr, forKey: .atr)
        try c.encode(uid, forKey: .uid)
        try c.encode(target, forKey: .target)
        try c.encode(aid, forKey: .aid)
        try c.encode(vas, forKey: .vas)
        try c.encode(error, forKey: .error)
    }
}

/// The SELECT-by-AID part of a session: every attempt in configured order, and the winner.
public struct AIDSessionResult: Sendable, Hashable, Codable {
    /// One SELECT sent, and the status word it got (`nil` when the exchange itself failed).
    public struct Attempt: Sendable, Hashable, Codable {
        /// The AID, upper-case hex.
        public var aid: String
        /// The final status word, hex (`9000`, `6A82`...), or `nil` on a transport failure.
        public var sw: String?

        /// Creates an attempt record.
        public init(aid: String, sw: String?) {
            self.aid = aid
            self.sw = sw
        }

        private enum CodingKeys: String, CodingKey { case aid, sw }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(aid, forKey: .aid)
            try c.encode(sw, forKey: .sw)
        }
    }

    /// The first AID whose SELECT succeeded, hex; `nil` when none did.
    public var selected: String?
    /// The selected application's FCI; `nil` when none was selected.
    public var fci: FCIRecord?
    /// Every SELECT sent, in order (PPSE included).
    public var attempts: [Attempt]
    /// The payment directory, when `[session] ppse` is on; `nil` otherwise.
    public var ppse: PaymentDirectory?

    /// Creates a record of the SELECT-by-AID part of a session.
    public init(selected: String?, fci: FCIRecord?, attempts: [Attempt], ppse: PaymentDirectory? = nil) {
        self.selected = selected
        self.fci = fci
        self.attempts = attempts
        self.ppse = ppse
    }

    private enum CodingKeys: String, CodingKey { case selected, fci, attempts, ppse }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(selected, forKey: .selected)
        try c.encode(fci, forKey: .fci)
        try c.encode(attempts, forKey: .attempts)
        try c.encode(ppse, forKey: .ppse)
    }
}
