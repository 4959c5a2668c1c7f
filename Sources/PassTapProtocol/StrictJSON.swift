public import Foundation

/// Checks that bytes are one strict JSON text (RFC 8259) before any decoder reads them.
///
/// Foundation's `JSONDecoder` is lenient on Linux: it executes `{"id":1,"method":"status",}`
/// (a trailing comma) and skips a byte-order mark. A request line must instead be exactly what
/// RFC 8259 allows, so that every JSON parser a client or a proxy uses reads the same request we
/// do. The grammar, RFC 8259 sections 2 to 8:
///
/// ```
/// JSON-text = ws value ws
/// value     = false / null / true / object / array / number / string
/// object    = begin-object [ member *( value-separator member ) ] end-object
/// member    = string name-separator value
/// array     = begin-array [ value *( value-separator value ) ] end-array
/// number    = [ minus ] int [ frac ] [ exp ]
/// int       = zero / ( digit1-9 *DIGIT )
/// frac      = decimal-point 1*DIGIT
/// exp       = e [ minus / plus ] 1*DIGIT
/// string    = quotation-mark *char quotation-mark
/// char      = unescaped / escape ( %x22 / %x5C / %x2F / %x62 / %x66 / %x6E / %x72 / %x74 / %x75 4HEXDIG )
/// unescaped = %x20-21 / %x23-5B / %x5D-10FFFF
/// ws        = *( %x20 / %x09 / %x0A / %x0D )
/// ```
///
/// Section 8.1: the text is UTF-8 (RFC 3629) with no byte-order mark. Beyond the grammar, a `\u`
/// escape of a lone surrogate is refused (section 8.2 leaves its meaning unpredictable), and
/// nesting is capped at ``maximumDepth`` (section 9: "An implementation may set limits on the
/// maximum depth of nesting"). An object whose member names repeat (after escapes are decoded,
/// compared as Swift strings) is refused too: section 4 says names "SHOULD be unique" and that otherwise "the behavior of
/// software that receives such an object is unpredictable" (Foundation's `JSONDecoder` reads the
/// first `id` of `{"id":1,"id":"two"}`, `JSONSerialization` and Python the last). The check is
/// iterative (no recursion) and reads each byte once, names twice.
public enum StrictJSON {
    /// The deepest nesting of arrays and objects accepted: far deeper than any request needs
    /// (params nest three levels at most) and below Foundation's own limit of 512.
    public static let maximumDepth = 64

    /// Throws unless `bytes` are exactly one strict JSON text.
    public static func validate(_ bytes: Data) throws(StrictJSONError) {
        if let error = bytes.withUnsafeBytes({
            var validator = Validator(bytes: $0)
            return validator.run()
        }) { throw error }
    }

    /// Throws unless `bytes` are exactly one strict JSON text.
    public static func validate(_ bytes: [UInt8]) throws(StrictJSONError) {
        if let error = bytes.withUnsafeBytes({
            var validator = Validator(bytes: $0)
            return validator.run()
        }) { throw error }
    }
}

/// The state of one validation: a position and the stack of open containers.
private struct Validator {
    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
    private static let openObject = UInt8(ascii: "{"), closeObject = UInt8(ascii: "}")
    private static let openArray = UInt8(ascii: "["), closeArray = UInt8(ascii: "]")

    let bytes: UnsafeRawBufferPointer
    private var index = 0
    /// The open containers, innermost last: `{` or `[`.
    private var open: [UInt8] = []
    /// The member names of each open object, innermost last, decoded. As Swift strings, which are
    /// equal when canonically equivalent: Foundation's `JSONDecoder` compares keys so, and
    /// `{"\u00C5":1,"\u212B":2}` is one key twice to it.
    private var names: [Set<String>] = []

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// `nil` when the text is strict JSON; otherwise the first violation.
    mutating func run() -> StrictJSONError? {
        do {
            try text()
            return nil
        } catch {
            return error
        }
    }

    private mutating func text() throws(StrictJSONError) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { throw StrictJSONError(.byteOrderMark, at: 0) }
        try value()
        skipWhitespace()
        guard let byte = peek() else { return }
        throw byte == UInt8(ascii: "/") ? unexpected(byte) : fail(.trailingData)
    }

    /// One value, containers included: a loop over "expect a value" and "after a value".
    private mutating func value() throws(StrictJSONError) {
        var expectingValue = true
        while expectingValue || !open.isEmpty {
            skipWhitespace()
            guard let byte = peek() else { throw fail(.unexpectedEnd) }
            if expectingValue {
                switch byte {
                case Self.openObject, Self.openArray:
                    guard open.count < StrictJSON.maximumDepth else { throw fail(.tooDeep) }
                    open.append(byte)
                    if byte == Self.openObject { names.append([]) }
                    index += 1
                    skipWhitespace()
                    if peek() == Self.closing(byte) {
                        index += 1
                        close()
                        expectingValue = false
                    } else if byte == Self.openObject {
                        try memberName()
                    }
                    continue
                case Self.quote: try string()
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
                case UInt8(ascii: "+"), UInt8(ascii: "."): throw fail(.invalidNumber)
                case UInt8(ascii: "t"): try literal("true")
                case UInt8(ascii: "f"): try literal("false")
                case UInt8(ascii: "n"): try literal("null")
                default: throw unexpected(byte)
                }
                expectingValue = false
            } else {
                let container = open[open.count - 1]
                if byte == Self.closing(container) {
                    index += 1
                    close()
                    continue
                }
                guard byte == UInt8(ascii: ",") else { throw unexpected(byte) }
                index += 1
                skipWhitespace()
                if let next = peek(), next == Self.closeObject || next == Self.closeArray { throw fail(.trailingComma) }
                if container == Self.openObject { try memberName() }
                expectingValue = true
            }
        }
    }

    private mutating func close() {
        if open.removeLast() == Self.openObject { names.removeLast() }
    }

    /// `"name"` then `:`, inside an object; a name the object already has is refused.
    private mutating func memberName() throws(StrictJSONError) {
        guard let byte = peek() else { throw fail(.unexpectedEnd) }
        guard byte == Self.quote else { throw unexpected(byte) }
        let start = index
        try string()
        let name = String(decoding: decodedString(from: start + 1, to: index - 1), as: UTF8.self)
        guard names[names.count - 1].insert(name).inserted else {
            throw StrictJSONError(.duplicateName, at: start)
        }
        skipWhitespace()
        guard let separator = peek() else { throw fail(.unexpectedEnd) }
        guard separator == UInt8(ascii: ":") else { throw unexpected(separator) }
        index += 1
    }

    private mutating func string() throws(StrictJSONError) {
        index += 1  // the opening quote
        while let byte = peek() {
            switch byte {
            case Self.quote:
                index += 1
                return
            case Self.backslash:
                try escape()
            case 0x00..<0x20:
                throw fail(.controlCharacterInString)
            case 0x20..<0x80:
                index += 1
            default:
                guard let length = utf8SequenceLength() else { throw fail(.invalidUTF8) }
                index += length
            }
        }
        throw fail(.unexpectedEnd)
    }

    private mutating func escape() throws(StrictJSONError) {
        let start = index
        index += 1  // the backslash
        guard let byte = peek() else { throw fail(.unexpectedEnd) }
        switch byte {
        case Self.quote, Self.backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
            UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            index += 1
            let unit = try hexQuad()
            switch unit {
            case 0xD800...0xDBFF:
                guard peek() == Self.backslash, peek(at: index + 1) == UInt8(ascii: "u") else {
                    throw StrictJSONError(.unpairedSurrogate, at: start)
                }
                index += 2
                guard (0xDC00...0xDFFF).contains(try hexQuad()) else { throw StrictJSONError(.unpairedSurrogate, at: start) }
            case 0xDC00...0xDFFF:
                throw StrictJSONError(.unpairedSurrogate, at: start)
            default:
                break
            }
        default:
            throw fail(.invalidEscape)
        }
    }

    /// The UTF-8 of the string whose contents (between the quotes) are `start..<end`, escapes
    /// decoded. The contents were validated by ``string()``.
    private func decodedString(from start: Int, to end: Int) -> [UInt8] {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(end - start)
        var position = start
        func quad(at offset: Int) -> UInt32 {
            var value: UInt32 = 0
            for byte in bytes[offset..<(offset + 4)] {
                let digit: UInt8 = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : (byte | 0x20) - UInt8(ascii: "a") + 10
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while position < end {
            let byte = bytes[position]
            guard byte == Self.backslash else {
                decoded.append(byte)
                position += 1
                continue
            }
            let kind = bytes[position + 1]
            position += 2
            switch kind {
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = quad(at: position)
                position += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    scalar = 0x10000 + (scalar - 0xD800) << 10 + (quad(at: position + 2) - 0xDC00)
                    position += 6
                }
                decoded.append(contentsOf: Unicode.Scalar(scalar).map { Array(String($0).utf8) } ?? [])
            default: decoded.append(kind)  // " \ /
            }
        }
        return decoded
    }

    /// The four hex digits of a `\u` escape.
    private mutating func hexQuad() throws(StrictJSONError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let byte = peek() else { throw fail(.unexpectedEnd) }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail(.invalidEscape)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func number() throws(StrictJSONError) {
        if peek() == UInt8(ascii: "-") { index += 1 }
        switch peek() {
        case UInt8(ascii: "0"):
            index += 1
            if let next = peek(), Self.isDigit(next) { throw fail(.invalidNumber) }  // a leading zero
        case let byte? where Self.isDigit(byte):
            skipDigits()
        default:
            throw fail(.invalidNumber)
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let byte = peek(), Self.isDigit(byte) else { throw fail(.invalidNumber) }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), Self.isDigit(byte) else { throw fail(.invalidNumber) }
            skipDigits()
        }
    }

    private mutating func literal(_ word: StaticString) throws(StrictJSONError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard let actual = peek() else { throw fail(.unexpectedEnd) }
            guard actual == byte else { throw unexpected(actual) }
            index += 1
        }
    }

    /// The length of the well-formed UTF-8 sequence of two to four bytes at `index`, or `nil`.
    ///
    /// RFC 3629, section 4:
    /// ```
    /// UTF8-2 = %xC2-DF UTF8-tail
    /// UTF8-3 = %xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail ) / %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )
    /// UTF8-4 = %xF0 %x90-BF 2( UTF8-tail ) / %xF1-F3 3( UTF8-tail ) / %xF4 %x80-8F 2( UTF8-tail )
    /// ```
    private func utf8SequenceLength() -> Int? {
        guard let lead = peek() else { return nil }
        let tails: Int
        let second: ClosedRange<UInt8>
        switch lead {
        case 0xC2...0xDF: (tails, second) = (1, 0x80...0xBF)
        case 0xE0: (tails, second) = (2, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (tails, second) = (2, 0x80...0xBF)
        case 0xED: (tails, second) = (2, 0x80...0x9F)
        case 0xF0: (tails, second) = (3, 0x90...0xBF)
        case 0xF1...0xF3: (tails, second) = (3, 0x80...0xBF)
        case 0xF4: (tails, second) = (3, 0x80...0x8F)
        default: return nil
        }
        for offset in 1...tails {
            guard let byte = peek(at: index + offset), (offset == 1 ? second : 0x80...0xBF).contains(byte) else { return nil }
        }
        return tails + 1
    }

    /// The error for a byte that does not fit here, named as precisely as we can.
    private func unexpected(_ byte: UInt8) -> StrictJSONError {
        if byte == UInt8(ascii: "/"), let next = peek(at: index + 1), next == UInt8(ascii: "/") || next == UInt8(ascii: "*") {
            return fail(.comment)
        }
        if byte >= 0x80, utf8SequenceLength() == nil { return fail(.invalidUTF8) }
        return fail(.unexpectedByte(byte))
    }

    private func fail(_ code: StrictJSONError.Code) -> StrictJSONError {
        StrictJSONError(code, at: index)
    }

    private func peek() -> UInt8? { peek(at: index) }

    private func peek(at position: Int) -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func closing(_ opening: UInt8) -> UInt8 {
        opening == openObject ? closeObject : closeArray
    }
}
