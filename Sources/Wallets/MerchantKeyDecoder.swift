/// Turns a key file's bytes into the 32-byte P-256 scalar (vas-protocol.md §6, "Private-key
/// formats readers accept").
///
/// | Format | Recognised by |
/// |---|---|
/// | SEC1 / RFC 5915 PEM | `-----BEGIN EC PRIVATE KEY-----`, optionally after `-----BEGIN EC PARAMETERS-----` |
/// | PKCS#8 PEM | `-----BEGIN PRIVATE KEY-----` |
/// | DER | not text, starts with `30`: `SEQUENCE { INTEGER 1, OCTET STRING d, ... }` (SEC1) or `SEQUENCE { INTEGER 0, SEQUENCE { ecPublicKey, prime256v1 }, OCTET STRING sec1 }` (PKCS#8) |
/// | hex | 64 hex digits (spaces, colons and line breaks ignored) |
///
/// ```
/// ECPrivateKey ::= SEQUENCE {                       (RFC 5915)
///   version INTEGER { ecPrivkeyVer1(1) },
///   privateKey OCTET STRING,
///   parameters [0] ECParameters OPTIONAL,          must be prime256v1 when present
///   publicKey [1] BIT STRING OPTIONAL }            ignored
/// ```
/// DER is walked in place, by index ranges into the one buffer, under small limits; nothing here
/// traps.
///
/// Key material is never copied into a buffer that is not zeroed: the file's bytes are read
/// where they are (the caller owns and zeroes them), PEM bodies are gathered and Base64-decoded
/// into arrays of their own that are zeroed before returning, and the scalar is copied once, into
/// the array returned, which the caller zeroes once the key is made (``SecretBytes``).
package enum MerchantKeyDecoder {
    /// No key file in any accepted format is larger.
    package static let maximumFileSize = 16 * 1024
    /// Length of a P-256 scalar: what every accepted format decodes to.
    package static let scalarLength = 32
    /// `1.2.840.10045.3.1.7` (prime256v1 / secp256r1).
    package static let p256OID: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    /// `1.2.840.10045.2.1` (id-ecPublicKey).
    package static let ecPublicKeyOID: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    /// The most elements one constructed value of a key may hold (SEC1 has 4, PKCS#8 up to 5).
    private static let maximumElements = 16

    /// The 32-byte scalar, in a new array the caller zeroes.
    package static func scalar(from bytes: [UInt8], path: String) throws(MerchantKeyError) -> [UInt8] {
        guard bytes.count <= maximumFileSize else {
            throw MerchantKeyError(.tooLarge, path: path, "\(bytes.count) bytes; a P-256 key file is well under \(maximumFileSize)")
        }
        let isText = bytes.allSatisfy { (0x20...0x7E).contains($0) || (0x09...0x0D).contains($0) }
        if !isText, bytes.first == 0x30 {
            return try scalar(fromDER: bytes, in: bytes.indices, path: path)
        }
        if find(Array("-----BEGIN ".utf8), in: bytes[...]) != nil {
            return try scalar(fromPEM: bytes, path: path)
        }
        return try scalar(fromHex: bytes, path: path)
    }

    // MARK: hex

    /// 64 hex digits, with whitespace and colons ignored.
    private static func scalar(fromHex bytes: [UInt8], path: String) throws(MerchantKeyError) -> [UInt8] {
        var scalar = [UInt8](repeating: 0, count: scalarLength)
        var digits = 0
        for byte in bytes {
            if byte == 0x20 || (0x09...0x0D).contains(byte) || byte == UInt8(ascii: ":") { continue }
            guard let nibble = hexValue(byte) else {
                SecretBytes.zero(&scalar)
                throw unrecognized(path)
            }
            if digits < 2 * scalarLength {
                scalar[digits / 2] |= digits % 2 == 0 ? nibble << 4 : nibble
            }
            digits += 1
        }
        guard digits > 0 else { throw unrecognized(path) }
        guard digits == 2 * scalarLength else {
            SecretBytes.zero(&scalar)
            throw MerchantKeyError(
                .invalidScalar, path: path,
                "holds \(digits) hex digits; a raw P-256 scalar is exactly 64 (32 bytes)"
            )
        }
        return scalar
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    // MARK: PEM

    /// One PEM block: its label and its decoded DER (key material: zeroed by whoever holds it).
    private struct PEMBlock {
        var label: String
        var der: [UInt8]
    }

    private static func scalar(fromPEM bytes: [UInt8], path: String) throws(MerchantKeyError) -> [UInt8] {
        var blocks = try pemBlocks(bytes, path: path)
        defer {
            for index in blocks.indices { SecretBytes.zero(&blocks[index].der) }
        }
        for index in blocks.indices {
            switch blocks[index].label {
            case "EC PARAMETERS":
                guard blocks[index].der.elementsEqual([0x06, UInt8(p256OID.count)] + p256OID) else {
                    throw MerchantKeyError(.notP256, path: path, "EC PARAMETERS name a curve other than P-256 (prime256v1); VAS keys are P-256")
                }
            case "EC PRIVATE KEY":
                return try scalar(fromSEC1: blocks[index].der, in: blocks[index].der.indices, path: path)
            case "PRIVATE KEY":
                return try scalar(fromPKCS8: blocks[index].der, in: blocks[index].der.indices, path: path)
            case "ENCRYPTED PRIVATE KEY":
                throw MerchantKeyError(
                    .encrypted, path: path,
                    "the key is password-protected; store it unencrypted (openssl pkey -in KEY -out NEW) with mode 0600 or 0640"
                )
            default:
                continue
            }
        }
        let labels = blocks.map(\.label).joined(separator: ", ")
        throw MerchantKeyError(
            .unrecognizedFormat, path: path,
            "PEM without a private key (found: \(labels.isEmpty ? "no complete block" : labels)); give the EC PRIVATE KEY or PRIVATE KEY file"
        )
    }

    /// The complete blocks of a PEM file, in order, each decoded. Lines are found in place; a
    /// block's Base64 is gathered into one array (reserved up front, so it is never reallocated
    /// and left behind unzeroed) and zeroed once decoded.
    private static func pemBlocks(_ bytes: [UInt8], path: String) throws(MerchantKeyError) -> [PEMBlock] {
        var blocks: [PEMBlock] = []
        var label: String? = nil
        var end: [UInt8] = []
        var body: [UInt8] = []
        body.reserveCapacity(bytes.count)
        defer { SecretBytes.zero(&body) }
        var failure: MerchantKeyError? = nil
        forEachLine(of: bytes) { line in
            if let current = label {
                if line.elementsEqual(end) {
                    guard let der = base64Decoded(body) else {
                        failure = MerchantKeyError(.unrecognizedFormat, path: path, "the \(current) PEM block is not valid Base64")
                        return false
                    }
                    blocks.append(PEMBlock(label: current, der: der))
                    label = nil
                    SecretBytes.zero(&body)
                    body.removeAll(keepingCapacity: true)
                } else if starts(line, with: "Proc-Type:"), find(Array("ENCRYPTED".utf8), in: line) != nil {
                    failure = MerchantKeyError(
                        .encrypted, path: path,
                        "the key is password-protected (legacy PEM encryption); store it unencrypted (openssl ec -in KEY -out NEW) with mode 0600 or 0640"
                    )
                    return false
                } else if !line.contains(UInt8(ascii: ":")) {
                    body.append(contentsOf: line)
                }
            } else if starts(line, with: "-----BEGIN "), line.count > 16,
                line.suffix(5).elementsEqual("-----".utf8)
            {
                let name = String(decoding: line.dropFirst(11).dropLast(5), as: UTF8.self)
                label = name
                end = Array("-----END \(name)-----".utf8)
            }
            return true
        }
        if let failure {
            for index in blocks.indices { SecretBytes.zero(&blocks[index].der) }
            throw failure
        }
        return blocks
    }

    /// Calls `body` with each line of `bytes` (split at LF, CR, VT and FF), without its leading
    /// and trailing spaces and tabs, as a slice of `bytes` (no copy), until `body` returns false.
    private static func forEachLine(of bytes: [UInt8], _ body: (ArraySlice<UInt8>) -> Bool) {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            var end = start
            while end < bytes.endIndex, !(0x0A...0x0D).contains(bytes[end]) { end += 1 }
            var first = start
            var last = end
            while first < last, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
            while last > first, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
            guard body(bytes[first..<last]) else { return }
            start = end + 1
        }
    }

    private static func starts(_ line: ArraySlice<UInt8>, with prefix: String) -> Bool {
        line.starts(with: prefix.utf8)
    }

    /// Where `needle` first occurs in `haystack`, or `nil`.
    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index <= haystack.endIndex - needle.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// RFC 4648 Base64 (standard alphabet, `=` padding, no line breaks: PEM lines are joined
    /// first), decoded into a new array; `nil` if `text` is not Base64.
    static func base64Decoded(_ text: [UInt8]) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var index = 0
        while index < text.count {
            var quad: UInt32 = 0
            var padding = 0
            for offset in 0..<4 {
                let byte = text[index + offset]
                let value: UInt8
                if byte == UInt8(ascii: "=") {
                    // Padding only at the end of the last group, in its last one or two places.
                    guard index + 4 == text.count, offset >= 2 else {
                        SecretBytes.zero(&output)
                        return nil
                    }
                    padding += 1
                    value = 0
                } else {
                    guard padding == 0, let decoded = base64Value(byte) else {
                        SecretBytes.zero(&output)
                        return nil
                    }
                    value = decoded
                }
                quad = quad << 6 | UInt32(value)
            }
            output.append(UInt8(truncatingIfNeeded: quad >> 16))
            if padding < 2 { output.append(UInt8(truncatingIfNeeded: quad >> 8)) }
            if padding < 1 { output.append(UInt8(truncatingIfNeeded: quad)) }
            index += 4
        }
        return output
    }

    private static func base64Value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    // MARK: DER

    /// One DER element inside a buffer: its tag and where its value lies.
    private struct Element {
        var tag: UInt8
        var value: Range<Int>
    }

    private static func scalar(fromDER der: [UInt8], in range: Range<Int>, path: String) throws(MerchantKeyError) -> [UInt8] {
        let fields = try sequenceFields(der, in: range, path: path)
        if fields.count >= 2, fields[1].tag == 0x30 {
            return try scalar(fromPKCS8: der, in: range, path: path)
        }
        return try scalar(fromSEC1: der, in: range, path: path)
    }

    private static func scalar(fromPKCS8 der: [UInt8], in range: Range<Int>, path: String) throws(MerchantKeyError) -> [UInt8] {
        let fields = try sequenceFields(der, in: range, path: path)
        guard fields.count >= 3, fields[0].tag == 0x02, der[fields[0].value] == [0x00] || der[fields[0].value] == [0x01],
            fields[1].tag == 0x30, fields[2].tag == 0x04
        else { throw unrecognized(path) }
        let algorithm = try elements(der, in: fields[1].value, path: path)
        guard algorithm.first?.tag == 0x06, let oid = algorithm.first?.value, der[oid].elementsEqual(ecPublicKeyOID) else {
            throw MerchantKeyError(.notP256, path: path, "PKCS#8 key for an algorithm other than EC; VAS needs a P-256 EC key")
        }
        guard algorithm.count >= 2, algorithm[1].tag == 0x06, der[algorithm[1].value].elementsEqual(p256OID) else {
            throw MerchantKeyError(.notP256, path: path, "PKCS#8 EC key on a curve other than P-256 (prime256v1)")
        }
        return try scalar(fromSEC1: der, in: fields[2].value, path: path)
    }

    private static func scalar(fromSEC1 der: [UInt8], in range: Range<Int>, path: String) throws(MerchantKeyError) -> [UInt8] {
        let fields = try sequenceFields(der, in: range, path: path)
        guard fields.count >= 2, fields[0].tag == 0x02, der[fields[0].value] == [0x01], fields[1].tag == 0x04 else {
            throw unrecognized(path)
        }
        if let parameters = fields.first(where: { $0.tag == 0xA0 }) {
            let inner = try? elements(der, in: parameters.value, path: path)
            guard let oid = inner?.first, oid.tag == 0x06, der[oid.value].elementsEqual(p256OID) else {
                throw MerchantKeyError(.notP256, path: path, "SEC1 key on a curve other than P-256 (prime256v1)")
            }
        }
        let value = fields[1].value
        guard value.count <= scalarLength else {
            throw MerchantKeyError(.notP256, path: path, "a \(value.count)-byte private scalar is not a P-256 key (32 bytes)")
        }
        // Left-padded with zeros to 32 bytes, copied straight from the buffer into the one array.
        var scalar = [UInt8](repeating: 0, count: scalarLength)
        let offset = scalarLength - value.count
        for (position, index) in value.enumerated() { scalar[offset + position] = der[index] }
        return scalar
    }

    /// The fields of the one SEQUENCE that exactly fills `range`.
    private static func sequenceFields(_ der: [UInt8], in range: Range<Int>, path: String) throws(MerchantKeyError) -> [Element] {
        let top = try elements(der, in: range, path: path)
        guard top.count == 1, top[0].tag == 0x30 else { throw unrecognized(path) }
        return try elements(der, in: top[0].value, path: path)
    }

    /// The elements that exactly fill `range` of `der`: one-byte tags, definite lengths of at
    /// most two length bytes (a key file is under 16 KiB), at most ``maximumElements``.
    private static func elements(_ der: [UInt8], in range: Range<Int>, path: String) throws(MerchantKeyError) -> [Element] {
        var result: [Element] = []
        var index = range.lowerBound
        while index < range.upperBound {
            guard result.count < maximumElements, range.upperBound - index >= 2 else { throw unrecognized(path) }
            let tag = der[index]
            guard tag & 0x1F != 0x1F else { throw unrecognized(path) }
            var length = Int(der[index + 1])
            index += 2
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard (1...2).contains(count), range.upperBound - index >= count else { throw unrecognized(path) }
                length = 0
                for _ in 0..<count {
                    length = length << 8 | Int(der[index])
                    index += 1
                }
            }
            guard length <= range.upperBound - index else { throw unrecognized(path) }
            result.append(Element(tag: tag, value: index..<(index + length)))
            index += length
        }
        return result
    }

    private static func unrecognized(_ path: String) -> MerchantKeyError {
        MerchantKeyError(
            .unrecognizedFormat, path: path,
            "not a P-256 private key in SEC1 or PKCS#8 (PEM or DER) or a 64-digit hex scalar; convert it with openssl ec or openssl pkey"
        )
    }
}
