public import Foundation
import ISO7816

/// A decrypted VAS plaintext (vas-protocol.md §5.2 step 6): a 4-byte big-endian timestamp in
/// seconds since 2001-01-01 00:00:00 UTC (Apple's reference date), then the pass's `nfc.message`.
public struct VASPayload: Hashable, Sendable {
    /// Seconds from the Unix epoch to Apple's reference date: Unix time = timestamp + 978 307 200.
    public static let appleEpochOffset: Int64 = 978_307_200
    /// The longest message Apple sends.
    public static let maximumMessageLength = 64

    /// The timestamp as sent: seconds since 2001-01-01 UTC, from the phone's clock.
    public let timestampRaw: UInt32
    /// The message bytes; UTF-8 by Apple's rules, but not trusted to be.
    public let message: [UInt8]

    /// Splits a plaintext; `nil` when it is shorter than the 4-byte timestamp.
    public init?(plaintext: [UInt8]) {
        guard plaintext.count >= 4 else { return nil }
        timestampRaw = UInt32(plaintext[0]) << 24 | UInt32(plaintext[1]) << 16 | UInt32(plaintext[2]) << 8 | UInt32(plaintext[3])
        message = Array(plaintext[4...])
    }

    /// A payload from its parts (used when sealing).
    public init(timestampRaw: UInt32, message: [UInt8]) {
        self.timestampRaw = timestampRaw
        self.message = message
    }

    /// The plaintext bytes: timestamp then message.
    public var plaintext: [UInt8] {
        [UInt8(timestampRaw >> 24), UInt8(timestampRaw >> 16 & 0xFF), UInt8(timestampRaw >> 8 & 0xFF), UInt8(timestampRaw & 0xFF)] + message
    }

    /// The timestamp as Unix seconds.
    public var unixTime: Int64 { Int64(timestampRaw) + Self.appleEpochOffset }

    /// The timestamp as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(unixTime)) }

    /// The message as text when it is valid UTF-8; `nil` otherwise (use ``messageHex``).
    public var messageText: String? { String(validating: message, as: UTF8.self) }

    /// The message as upper-case hex, always available.
    public var messageHex: String { message.hexString }

    /// Whether the timestamp is within `windowSeconds` of `now`, in either direction. A window of
    /// 0 turns the check off (always fresh). The timestamp is the phone's own clock and nothing in
    /// the cryptogram proves when it was made (§5.4): the window only limits replay of old reads.
    public func freshness(windowSeconds: Int, now: Date) -> VASFreshness {
        guard windowSeconds > 0 else { return .fresh }
        let skew = abs(Double(unixTime) - now.timeIntervalSince1970)
        return skew <= Double(windowSeconds) ? .fresh : .stale
    }
}
