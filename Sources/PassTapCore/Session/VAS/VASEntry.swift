import Foundation
public import ISO7816
public import VAS

/// One merchant's outcome in a tap's VAS exchange.
///
/// `status` is a ``VASReadStatus`` (`success`, `data_not_found`, `no_matching_key`, `stale`,
/// `not_requested`...). `sw` is the GET VAS DATA status word when one was received. `key_id` is
/// shown whenever the phone sent a cryptogram (so `no_matching_key` says which key it wanted).
/// The payload members (`timestamp`, `timestamp_raw`, `message`, `message_hex`, `variant`) are
/// null unless the status is `success`, or `stale` with `[vas] publish_stale = true`, and the
/// subscriber may see passes: `withheld` says when it may not (``withholding(_:)``).
public struct VASEntry: Sendable, Hashable {
    /// The merchant's pass type identifier, as configured.
    public var passTypeID: String
    /// The outcome.
    public var status: VASReadStatus
    /// The status word; `nil` when no GET VAS DATA was answered.
    public var sw: StatusWord?
    /// The key id the cryptogram names.
    public var keyID: VASKeyID?
    /// The decrypted pass, when it is published.
    public var payload: VASPayload?
    /// The shared-info variant that decrypted it.
    public var variant: VASCipherVariant?
    /// Why the status is not `success`, for a person (never key material or plaintext).
    public var problem: String?
    /// Why the payload is left out for this subscriber although the tap may have read it; `nil`
    /// when nothing is withheld.
    public var withheld: ReadWithholding?

    /// An entry without payload.
    public init(passTypeID: String, status: VASReadStatus, sw: StatusWord? = nil, keyID: VASKeyID? = nil, problem: String? = nil) {
        self.passTypeID = passTypeID
        self.status = status
        self.sw = sw
        self.keyID = keyID
        self.problem = problem
    }

    /// Adds a decrypted payload, to be published.
    public mutating func publish(_ payload: VASPayload, variant: VASCipherVariant?) {
        self.payload = payload
        self.variant = variant
    }

    /// This entry as a subscriber sees it that may not see passes, for `reason`: everything that
    /// came out of the decryption (the payload: timestamp and message; the variant) is gone,
    /// and `withheld` says why. Status, status word and key id stay, and so does the problem,
    /// except a `stale` entry's: its figures (the pass's age against the host clock) give the
    /// timestamp away to the second, so it becomes ``withheldStaleProblem``.
    public func withholding(_ reason: ReadWithholding) -> VASEntry {
        var entry = self
        entry.payload = nil
        entry.variant = nil
        entry.withheld = reason
        if status == .stale { entry.problem = Self.withheldStaleProblem }
        return entry
    }

    /// A withheld `stale` entry's problem: no numbers, so no timestamp can be worked out of it.
    public static let withheldStaleProblem =
        "the pass timestamp is outside the freshness window (a replayed read, or the phone's clock is wrong)"

    /// Whether this entry carries a pass: a `success` with a published payload (a URL-only
    /// merchant's `success` carries none).
    public var hasPass: Bool { status == .success && payload != nil }
}

extension VASEntry: Codable {
    private enum CodingKeys: String, CodingKey {
        case passTypeID = "pass_type_id", status, sw, keyID = "key_id", timestamp, timestampRaw = "timestamp_raw"
        case message, messageHex = "message_hex", variant, problem, withheld
    }

    /// The payload is written as its timestamp (RFC 3339 and raw), message (text when UTF-8, and
    /// hex) and variant.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(passTypeID, forKey: .passTypeID)
        try c.encode(status, forKey: .status)
        try c.encode(Nullable(wrappedValue: sw), forKey: .sw)
        try c.encode(Nullable(wrappedValue: keyID), forKey: .keyID)
        try c.encode(Nullable(wrappedValue: payload.map { RFC3339.string(from: $0.date) }), forKey: .timestamp)
        try c.encode(Nullable(wrappedValue: payload?.timestampRaw), forKey: .timestampRaw)
        try c.encode(Nullable(wrappedValue: payload?.messageText), forKey: .message)
        try c.encode(Nullable(wrappedValue: payload.map { HexBytes($0.message) }), forKey: .messageHex)
        try c.encode(Nullable(wrappedValue: variant?.rawValue), forKey: .variant)
        try c.encode(Nullable(wrappedValue: problem), forKey: .problem)
        try c.encode(Nullable(wrappedValue: withheld), forKey: .withheld)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        passTypeID = try c.decode(String.self, forKey: .passTypeID)
        status = try c.decode(VASReadStatus.self, forKey: .status)
        sw = try c.decodeIfPresent(StatusWord.self, forKey: .sw)
        keyID = try c.decodeIfPresent(VASKeyID.self, forKey: .keyID)
        if let raw = try c.decodeIfPresent(UInt32.self, forKey: .timestampRaw),
            let message = try c.decodeIfPresent(HexBytes.self, forKey: .messageHex)
        {
            payload = VASPayload(timestampRaw: raw, message: message.bytes)
        }
        variant = try c.decodeIfPresent(String.self, forKey: .variant).flatMap(VASCipherVariant.init(rawValue:))
        problem = try c.decodeIfPresent(String.self, forKey: .problem)
        withheld = try c.decodeIfPresent(ReadWithholding.self, forKey: .withheld)
    }
}
