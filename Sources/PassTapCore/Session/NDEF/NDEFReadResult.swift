import Foundation
import ISO7816
public import NDEF

/// The NDEF part of a tap, published as `read.result`'s `ndef`: `null` when no NDEF was looked for
/// (`[ndef] enabled = false`, a card that is neither a Type 2 memory tag nor ISO-DEP, or an
/// ISO-DEP tap that already found an application or a pass).
///
/// ```json
/// {"tag_type": "type2", "record_count": 1, "records": [ ... ], "message_hex": "D1010C5504...",
///  "truncated": false, "problem": null, "withheld": null}
/// ```
/// A tag without NDEF, or whose message does not parse, gives `problem`, as VAS entries do.
///
/// **Caps.** The tag chooses these bytes, so the member is capped at
/// ``maximumEncodedBytes`` of JSON: records are published in order while they fit, one that does not fit in full is
/// published ``NDEFRecordReport/bare``, and the ones after the cap are left out; `message_hex`
/// is published only for a message of at most ``maximumMessageHexBytes`` that still fits.
/// `truncated` says that something was left out; `record_count` always counts every record.
public struct NDEFReadResult: Sendable, Hashable, Codable {
    /// Type 2 or Type 4.
    public var tagType: NDEFTagType
    /// How many records the message holds (0 when there is no message or it does not parse).
    public var recordCount: Int
    /// The records, decoded, in order (at most as many as fit the cap); `null` when there is no
    /// message or it does not parse, and for subscribers without the `read` role.
    @Nullable public var records: [NDEFRecordReport]?
    /// The raw message, upper-case hex; `null` when there is none, over
    /// ``maximumMessageHexBytes``, over the cap, or withheld.
    @Nullable public var messageHex: String?
    /// Whether records, a record's payload or `message_hex` were left out to keep the cap.
    public var truncated: Bool
    /// Why no records are published: no NDEF on the tag, a broken capability container or TLV, a
    /// message that does not parse; `null` when the message was read and parsed.
    @Nullable public var problem: String?
    /// `access` when the subscriber does not hold the `read` role (records and hex left out).
    @Nullable public var withheld: ReadWithholding?

    private enum CodingKeys: String, CodingKey {
        case tagType = "tag_type", recordCount = "record_count", records, messageHex = "message_hex", truncated, problem, withheld
    }

    /// The most bytes of JSON the member takes: 36 KiB, so that with the rest of the largest
    /// `read.result` (under 25 KB, `docs/socket-api.md`) a line stays under 64 KiB. An 8 KiB
    /// media record fits with its `payload_hex` and the `message_hex`.
    public static let maximumEncodedBytes = 36 * 1024
    /// The longest message whose raw hex is published (8 KiB, 16 KiB of hex).
    public static let maximumMessageHexBytes = 8 * 1024

    /// Creates a result as it is (no caps applied).
    public init(
        tagType: NDEFTagType, recordCount: Int = 0, records: [NDEFRecordReport]? = nil, messageHex: String? = nil, truncated: Bool = false,
        problem: String? = nil, withheld: ReadWithholding? = nil
    ) {
        self.tagType = tagType
        self.recordCount = recordCount
        self.records = records
        self.messageHex = messageHex
        self.truncated = truncated
        self.problem = problem
        self.withheld = withheld
    }

    /// A tag on which no message was found: `problem` says why.
    public init(tagType: NDEFTagType, problem: String) {
        self.init(tagType: tagType, recordCount: 0, problem: problem)
    }

    /// The result for `message`, the bytes of the tag's NDEF TLV or NDEF file: parsed with
    /// `limits` and capped. A message that does not parse gives a `problem`, its hex kept.
    public init(tagType: NDEFTagType, message: [UInt8], limits: NDEFLimits = .standard) {
        self.init(tagType: tagType)
        var used = Self.encodedSize(of: self) + 2  // `[]` in place of `null`, the worst case
        let parsed: NDEFMessage
        do {
            parsed = try NDEFMessage(parsing: message, limits: limits)
        } catch {
            problem = "the tag's NDEF message (\(message.count) bytes) does not parse: \(error)"
            used += Self.encodedSize(of: problem)
            publishHex(of: message, used: used)
            return
        }
        recordCount = parsed.records.count
        var reports: [NDEFRecordReport] = []
        for record in parsed.records {
            let full = NDEFRecordReport(record, limits: limits)
            let fullSize = Self.encodedSize(of: full) + 1
            if used + fullSize <= Self.maximumEncodedBytes {
                reports.append(full)
                used += fullSize
                continue
            }
            truncated = true
            let bare = full.bare
            let bareSize = Self.encodedSize(of: bare) + 1
            guard used + bareSize <= Self.maximumEncodedBytes else { break }
            reports.append(bare)
            used += bareSize
        }
        records = reports
        publishHex(of: message, used: used)
    }

    /// Sets `message_hex` when the message is small enough and fits what is left of the cap;
    /// marks the result `truncated` otherwise.
    private mutating func publishHex(of message: [UInt8], used: Int) {
        guard !message.isEmpty else { return }
        if message.count <= Self.maximumMessageHexBytes, used + 2 * message.count <= Self.maximumEncodedBytes {
            messageHex = message.hexString
        } else {
            truncated = true
        }
    }

    /// This result as a subscriber without the `read` role sees it: the tag type, the record
    /// count, `truncated` and `problem` (fixed sentences that quote no tag data); records and hex
    /// left out, `withheld` set.
    public func withholding(_ reason: ReadWithholding) -> NDEFReadResult {
        var withheld = self
        withheld.records = nil
        withheld.messageHex = nil
        withheld.withheld = reason
        return withheld
    }

    /// How many bytes of JSON `value` takes, counted without encoding it (``JSONByteCount``: as
    /// Foundation's default encoder writes it, which the daemon's never exceeds, as it escapes no
    /// more). A value that cannot be counted takes the whole cap.
    static func encodedSize(of value: some Encodable) -> Int {
        (try? JSONByteCount.of(value)) ?? maximumEncodedBytes
    }
}
