/// Why bytes are not a valid NDEF message (NFC Forum NDEF 1.0). Offsets count from the first byte
/// of the bytes given to ``NDEFMessage/init(parsing:limits:)``; for a nested message, from the
/// first byte of its record's payload.
public struct NDEFError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of fault.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// No bytes at all: an NDEF message holds at least one record (NDEF 1.0 §3.1).
        case emptyMessage = "empty_message"
        /// A header, a length, a type, an ID or a payload runs past the end of the bytes.
        case truncated
        /// Bytes after the record flagged ME (message end).
        case trailingBytes = "trailing_bytes"
        /// The MB (message begin) or ME (message end) flag is missing or set on the wrong record.
        case misplacedBeginOrEnd = "misplaced_begin_or_end"
        /// TNF 7, which NDEF 1.0 §3.2.6 reserves.
        case reservedTypeNameFormat = "reserved_tnf"
        /// A record's fields contradict its TNF: an empty record (TNF 0) with a type, ID or
        /// payload; an unknown (TNF 5) record with a type; a well-known, media, absolute-URI or
        /// external record without one.
        case fieldsContradictFormat = "fields_contradict_tnf"
        /// A chunked record (CF) that breaks NDEF 1.0 §3.2.3 and §3.3: an unchanged (TNF 6) record
        /// outside a chunk sequence, a middle chunk with a type or ID, a sequence the message ends
        /// inside of.
        case badChunk = "bad_chunk"
        /// More bytes than ``NDEFLimits/maxMessageBytes``.
        case messageTooLarge = "message_too_large"
        /// More records (chunks counted) than ``NDEFLimits/maxRecords``.
        case tooManyRecords = "too_many_records"
        /// Messages nested deeper than ``NDEFLimits/maxDepth``.
        case tooDeep = "too_deep"
    }

    /// What kind of fault.
    public var code: Code
    /// Where it was found, when it has a place.
    public var offset: Int?
    /// What happened, for a person: the field, the length, the limit.
    public var message: String

    /// Creates an error.
    public init(code: Code, offset: Int?, message: String) {
        self.code = code
        self.offset = offset
        self.message = message
    }

    public var description: String {
        if let offset { return "NDEF \(code.rawValue) at offset \(offset): \(message)" }
        return "NDEF \(code.rawValue): \(message)"
    }
}
