/// An NDEF message (NFC Forum NDEF 1.0 §3): the records of a tag, or of a record's payload.
///
/// Parse with ``init(parsing:limits:)`` (bounded, never traps) and write with ``encoded()``.
public struct NDEFMessage: Sendable, Hashable {
    /// The records, in order, chunked records reassembled.
    public var records: [NDEFRecord]

    /// Creates a message.
    public init(records: [NDEFRecord]) {
        self.records = records
    }

    /// Parses bytes that must hold exactly one NDEF message.
    ///
    /// Every record header is checked: MB on the first record only, ME on the last only, TNF 7
    /// refused, the type, ID and payload lengths checked against the bytes left before they are
    /// read (a long record's 4-byte length too). A chunked record (CF, NDEF 1.0 §3.2.3) is
    /// reassembled into one record with the first chunk's TNF, type and ID; every chunk counts
    /// towards ``NDEFLimits/maxRecords``, and the reassembled payload can be no larger than the
    /// bytes given, so ``NDEFLimits/maxMessageBytes`` bounds it. Bytes after the ME record are
    /// refused.
    ///
    /// - Throws: ``NDEFError`` naming the fault and its offset.
    public init(parsing bytes: [UInt8], limits: NDEFLimits = .standard) throws(NDEFError) {
        var parser = NDEFParser(bytes: bytes, limits: limits)
        records = try parser.parseMessage()
    }

    /// The message as bytes: MB on the first record, ME on the last, the short-record form (SR)
    /// whenever a payload has fewer than 256 bytes, IL when a record has an ID, never chunked.
    ///
    /// A message with no records encodes as one empty record (`D0 00 00`), the empty message of
    /// NDEF 1.0 §3.2.6; it parses back as that one record.
    ///
    /// - Precondition: every record's type and ID have at most 255 bytes (their length fields
    ///   are one byte) and its payload fewer than 2^32 bytes.
    public func encoded() -> [UInt8] {
        guard !records.isEmpty else { return [0xD0, 0x00, 0x00] }
        var out: [UInt8] = []
        for (index, record) in records.enumerated() {
            record.encode(into: &out, begin: index == 0, end: index == records.count - 1)
        }
        return out
    }
}

extension NDEFRecord {
    /// Appends this record, unchunked, with the given MB and ME flags.
    func encode(into out: inout [UInt8], begin: Bool, end: Bool) {
        precondition(type.count <= 0xFF, "an NDEF record type has at most 255 bytes (\(type.count) given)")
        precondition(id.count <= 0xFF, "an NDEF record ID has at most 255 bytes (\(id.count) given)")
        precondition(UInt64(payload.count) <= UInt64(UInt32.max), "an NDEF payload has fewer than 2^32 bytes")
        let short = payload.count <= 0xFF
        var header = tnf.rawValue
        if begin { header |= NDEFHeader.messageBegin }
        if end { header |= NDEFHeader.messageEnd }
        if short { header |= NDEFHeader.shortRecord }
        if !id.isEmpty { header |= NDEFHeader.idLength }
        out.append(header)
        out.append(UInt8(type.count))
        if short {
            out.append(UInt8(payload.count))
        } else {
            let length = UInt32(payload.count)
            out.append(contentsOf: [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
        }
        if !id.isEmpty { out.append(UInt8(id.count)) }
        out.append(contentsOf: type)
        out.append(contentsOf: id)
        out.append(contentsOf: payload)
    }
}
