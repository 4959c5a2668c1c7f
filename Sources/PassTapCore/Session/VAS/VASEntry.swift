import Foundation
public import VAS

/// One merchant's outcome in a tap's VAS exchange.
///
/// `status` is a ``VASReadStatus`` (`success`, `data_not_found`, `no_matching_key`, `stale`,
/// `not_requested`...). `sw` is the GET VAS DATA status word when one was received. `key_id` is
/// shown whenever the phone sent a cryptogram (so `no_matching_key` says which key it wanted).
/// The payload fields (`timestamp`, `timestamp_raw`, `message`, `message_hex`, `variant`) are null
/// unless the status is `success`, or `stale` with `[vas] publish_stale = true`.
public struct VASEntry: Sendable, Hashable, Codable {
    /// The merchant's pass type identifier, as configured.
    public var passTypeID: String
    /// The outcome.
    public var status: VASReadStatus
    /// The status word, hex; `nil` when no GET VAS DATA was answered.
    public var sw: String?
    /// The key id the cryptogram names, hex.
    public var keyID: String?
    /// The pass timestamp, RFC 3339 UTC.
    public var timestamp: String?
    /// The pass timestamp as sent: seconds since 2001-01-01 00:00:00 UTC.
    public var timestampRaw: UInt32?
    /// The pass message as text, when it is valid UTF-8.
    public var message: String?
    /// The pass message, hex (always set when the payload is published).
    public var messageHex: String?
    /// The shared-info variant that decrypted it (`A` or `B`).
    public var variant: String?
    /// Why the status is not `success`, for a person (never key material or plaintext).
    public var problem: String?

    /// An entry without payload.
    public init(passTypeID: String, status: VASReadStatus, sw: String? = nil, keyID: String? = nil, problem: String? = nil) {
        self.passTypeID = passTypeID
        self.status = status
        self.sw = sw
        self.keyID = keyID
        self.problem = problem
    }

    /// Adds a decrypted payload.
    public mutating func publish(_ payload: VASPayload, variant: VASCipherVariant?) {
        timestamp = RFC3339.string(from: payload.date)
        timestampRaw = payload.timestampRaw
        message = payload.messageText
        messageHex = payload.messageHex
        self.variant = variant?.rawValue
    }

    private enum CodingKeys: String, CodingKey {
        case passTypeID = "pass_type_id", status, sw, keyID = "key_id", timestamp, timestampRaw = "timestamp_raw"
        case message, messageHex = "message_hex", variant, problem
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(passTypeID, forKey: .passTypeID)
        try c.encode(status, forKey: .status)
        try c.encode(sw, forKey: .sw)
        try c.encode(keyID, forKey: .keyID)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encode(timestampRaw, forKey: .timestampRaw)
        try c.encode(message, forKey: .message)
        try c.encode(messageHex, forKey: .messageHex)
        try c.encode(variant, forKey: .variant)
        try c.encode(problem, forKey: .problem)
    }
}
