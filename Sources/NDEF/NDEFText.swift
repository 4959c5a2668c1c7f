/// A Text record's content (NFC Forum RTD-Text 1.0): a language code and text.
///
/// The payload is a status byte, the language code (ASCII, RFC 5646, e.g. `en-US`), then the
/// text:
///
/// ```
///   status bit 7      0 = UTF-8, 1 = UTF-16
///   status bit 6      reserved (ignored when read, 0 when written)
///   status bits 5..0  length of the language code
/// ```
///
/// UTF-16 text may begin with a byte order mark (`FE FF` big-endian, `FF FE` little-endian);
/// without one it is big-endian. It is written big-endian with the mark.
public struct NDEFText: Sendable, Hashable {
    /// How the text is encoded in the payload.
    public enum Encoding: Sendable, Hashable {
        case utf8
        case utf16
    }

    /// The language code, e.g. `en`.
    public var language: String
    /// The text.
    public var text: String
    /// The encoding it had, or will have.
    public var encoding: Encoding

    /// Creates a text.
    public init(language: String, text: String, encoding: Encoding = .utf8) {
        self.language = language
        self.text = text
        self.encoding = encoding
    }

    /// Reads a `T` payload.
    init(payload: [UInt8]) throws(NDEFDecodingFailure) {
        guard let status = payload.first else { throw "a Text record with no payload (it needs the status byte)" }
        let languageLength = Int(status & 0x3F)
        guard languageLength <= payload.count - 1 else {
            throw "the Text language code length \(languageLength) runs past the payload (\(payload.count - 1) bytes after the status byte)"
        }
        let languageBytes = payload[1..<(1 + languageLength)]
        guard languageBytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw "the Text language code is not printable ASCII"
        }
        let body = payload[(1 + languageLength)...]
        language = String(decoding: languageBytes, as: UTF8.self)
        if status & 0x80 == 0 {
            guard let decoded = String(validating: body, as: UTF8.self) else { throw "the Text is flagged UTF-8 but is not UTF-8" }
            text = decoded
            encoding = .utf8
        } else {
            guard body.count % 2 == 0 else { throw "the Text is flagged UTF-16 but has an odd number of bytes (\(body.count))" }
            var units: [UInt16] = []
            units.reserveCapacity(body.count / 2)
            var index = body.startIndex
            while index < body.endIndex {
                units.append(UInt16(body[index]) << 8 | UInt16(body[index + 1]))
                index += 2
            }
            if units.first == 0xFFFE {
                units = units.dropFirst().map { $0.byteSwapped }
            } else if units.first == 0xFEFF {
                units.removeFirst()
            }
            guard let decoded = String(validating: units, as: UTF16.self) else { throw "the Text is flagged UTF-16 but is not UTF-16" }
            text = decoded
            encoding = .utf16
        }
    }

    /// The `T` payload: status byte, language, text (UTF-16 big-endian with its mark).
    ///
    /// - Precondition: the language code has at most 63 bytes (6 bits of the status byte).
    var payload: [UInt8] {
        let languageBytes = Array(language.utf8)
        precondition(languageBytes.count <= 0x3F, "an RTD-Text language code has at most 63 bytes")
        switch encoding {
        case .utf8:
            return [UInt8(languageBytes.count)] + languageBytes + Array(text.utf8)
        case .utf16:
            var out = [0x80 | UInt8(languageBytes.count)] + languageBytes + [0xFE, 0xFF]
            for unit in text.utf16 { out += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
            return out
        }
    }
}
