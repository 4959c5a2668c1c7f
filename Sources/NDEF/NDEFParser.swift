/// Reads the records of one NDEF message (NFC Forum NDEF 1.0 §3), within ``NDEFLimits``.
///
/// Every length is checked against the bytes left before it is used; any input returns records
/// or throws an ``NDEFError``, never traps.
struct NDEFParser {
    private let bytes: [UInt8]
    private let limits: NDEFLimits
    private var index = 0
    private var count = 0

    init(bytes: [UInt8], limits: NDEFLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// A chunked record being reassembled: its first chunk, with the payload so far.
    private struct OpenChunk {
        var record: NDEFRecord
        var offset: Int
    }

    mutating func parseMessage() throws(NDEFError) -> [NDEFRecord] {
        guard limits.maxDepth >= 1 else {
            throw NDEFError(code: .tooDeep, offset: nil, message: "the message is nested deeper than the limit (NDEFLimits.maxDepth)")
        }
        guard bytes.count <= limits.maxMessageBytes else {
            throw NDEFError(
                code: .messageTooLarge, offset: limits.maxMessageBytes,
                message: "the message has \(bytes.count) bytes, over the limit of \(limits.maxMessageBytes)")
        }
        guard !bytes.isEmpty else {
            throw NDEFError(code: .emptyMessage, offset: 0, message: "no bytes: an NDEF message holds at least one record")
        }
        var records: [NDEFRecord] = []
        var open: OpenChunk?
        while true {
            let start = index
            guard index < bytes.count else {
                throw NDEFError(code: .truncated, offset: index, message: "the bytes end before a record flagged ME (message end)")
            }
            count += 1
            guard count <= limits.maxRecords else {
                throw NDEFError(
                    code: .tooManyRecords, offset: start, message: "more than \(limits.maxRecords) records (chunks counted)")
            }
            let header = bytes[index]
            index += 1
            guard let tnf = NDEFTypeNameFormat(rawValue: header & NDEFHeader.tnfMask) else {
                throw NDEFError(code: .reservedTypeNameFormat, offset: start, message: "TNF 7 is reserved")
            }
            let begins = header & NDEFHeader.messageBegin != 0
            guard begins == (start == 0) else {
                throw NDEFError(
                    code: .misplacedBeginOrEnd, offset: start,
                    message: start == 0 ? "the first record lacks the MB (message begin) flag" : "MB (message begin) set on a record after the first")
            }
            let chunked = header & NDEFHeader.chunkFlag != 0
            let ends = header & NDEFHeader.messageEnd != 0
            let typeLength = Int(try byte("TYPE LENGTH"))
            let payloadLength: Int
            if header & NDEFHeader.shortRecord != 0 {
                payloadLength = Int(try byte("PAYLOAD LENGTH"))
            } else {
                var length = 0
                for _ in 0..<4 { length = length << 8 | Int(try byte("PAYLOAD LENGTH (4 bytes)")) }
                payloadLength = length
            }
            let hasID = header & NDEFHeader.idLength != 0
            let idLength = hasID ? Int(try byte("ID LENGTH")) : 0
            let type = try take(typeLength, "TYPE (\(typeLength) bytes)")
            let id = try take(idLength, "ID (\(idLength) bytes)")
            let payload = try take(payloadLength, "PAYLOAD (\(payloadLength) bytes)")

            if var chunk = open {
                guard tnf == .unchanged, typeLength == 0, !hasID else {
                    throw NDEFError(
                        code: .badChunk, offset: start,
                        message: "a middle or last chunk must have TNF 6 (unchanged), no type and no ID (NDEF 1.0 §3.2.3)")
                }
                chunk.record.payload += payload
                if chunked {
                    open = chunk
                } else {
                    records.append(chunk.record)
                    open = nil
                }
            } else {
                try check(tnf: tnf, typeLength: typeLength, idLength: idLength, payloadLength: payloadLength, chunked: chunked, at: start)
                let record = NDEFRecord(tnf: tnf, type: type, id: id, payload: payload)
                if chunked {
                    open = OpenChunk(record: record, offset: start)
                } else {
                    records.append(record)
                }
            }
            if ends {
                if let open {
                    throw NDEFError(
                        code: .badChunk, offset: start,
                        message: "the message ends (ME) inside the chunked record that begins at offset \(open.offset)")
                }
                guard index == bytes.count else {
                    let trailing = bytes.count - index
                    throw NDEFError(
                        code: .trailingBytes, offset: index,
                        message: "\(trailing) byte\(trailing == 1 ? "" : "s") after the record flagged ME (message end)")
                }
                return records
            }
        }
    }

    /// NDEF 1.0 §3.2.6: what each TNF allows in the type, ID and payload fields, for a record that
    /// is not a middle or last chunk.
    private func check(
        tnf: NDEFTypeNameFormat, typeLength: Int, idLength: Int, payloadLength: Int, chunked: Bool, at offset: Int
    ) throws(NDEFError) {
        switch tnf {
        case .empty:
            guard typeLength == 0, idLength == 0, payloadLength == 0, !chunked else {
                throw NDEFError(
                    code: .fieldsContradictFormat, offset: offset,
                    message: "an empty record (TNF 0) has a type, an ID, a payload or the CF flag")
            }
        case .unknown:
            guard typeLength == 0 else {
                throw NDEFError(code: .fieldsContradictFormat, offset: offset, message: "an unknown record (TNF 5) has a type")
            }
        case .unchanged:
            throw NDEFError(
                code: .badChunk, offset: offset,
                message: "an unchanged record (TNF 6) outside a chunked record: only a middle or last chunk has TNF 6")
        case .wellKnown, .media, .absoluteURI, .external:
            guard typeLength > 0 else {
                throw NDEFError(
                    code: .fieldsContradictFormat, offset: offset, message: "a record with TNF \(tnf.rawValue) has no type")
            }
        }
    }

    private mutating func byte(_ what: String) throws(NDEFError) -> UInt8 {
        guard index < bytes.count else {
            throw NDEFError(code: .truncated, offset: index, message: "the bytes end inside the \(what) field")
        }
        defer { index += 1 }
        return bytes[index]
    }

    private mutating func take(_ length: Int, _ what: String) throws(NDEFError) -> [UInt8] {
        guard length <= bytes.count - index else {
            let left = bytes.count - index
            throw NDEFError(
                code: .truncated, offset: index,
                message: "the \(what) runs past the end: \(left) byte\(left == 1 ? "" : "s") left")
        }
        defer { index += length }
        return Array(bytes[index..<(index + length)])
    }
}
