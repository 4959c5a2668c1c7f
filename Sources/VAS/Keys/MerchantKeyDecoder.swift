import Foundation
import ISO7816

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
/// DER is walked with ``BERTLVParser`` under small limits; nothing here traps.
enum MerchantKeyDecoder {
    /// No key file in any accepted format is larger.
    static let maximumFileSize = 16 * 1024
    /// `1.2.840.10045.3.1.7` (prime256v1 / secp256r1).
    static let p256OID: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    /// `1.2.840.10045.2.1` (id-ecPublicKey).
    static let ecPublicKeyOID: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]

    private static let derLimits = TLVLimits(maxDepth: 6, maxNodes: 64)

    static func scalar(from bytes: [UInt8], path: String) throws(MerchantKeyError) -> [UInt8] {
        guard bytes.count <= maximumFileSize else {
            throw MerchantKeyError(.tooLarge, path: path, "\(bytes.count) bytes; a P-256 key file is well under \(maximumFileSize)")
        }
        let isText = bytes.allSatisfy { (0x20...0x7E).contains($0) || (0x09...0x0D).contains($0) }
        if !isText, bytes.first == 0x30 {
            return try scalar(fromDER: bytes, path: path)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN ") {
            return try scalar(fromPEM: text, path: path)
        }
        let digits = text.filter { !$0.isWhitespace && $0 != ":" }
        if !digits.isEmpty, digits.allSatisfy(\.isHexDigit) {
            guard digits.count == 2 * MerchantKey.scalarLength, let scalar = try? [UInt8](hex: digits) else {
                throw MerchantKeyError(
                    .invalidScalar, path: path,
                    "holds \(digits.count) hex digits; a raw P-256 scalar is exactly 64 (32 bytes)"
                )
            }
            return scalar
        }
        throw unrecognized(path)
    }

    // MARK: PEM

    private static func scalar(fromPEM text: String, path: String) throws(MerchantKeyError) -> [UInt8] {
        let blocks = try pemBlocks(text, path: path)
        for block in blocks {
            switch block.label {
            case "EC PARAMETERS":
                guard block.der == [0x06, UInt8(p256OID.count)] + p256OID else {
                    throw MerchantKeyError(.notP256, path: path, "EC PARAMETERS name a curve other than P-256 (prime256v1); VAS keys are P-256")
                }
            case "EC PRIVATE KEY":
                return try scalar(fromSEC1: block.der, path: path)
            case "PRIVATE KEY":
                return try scalar(fromPKCS8: block.der, path: path)
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

    private static func pemBlocks(_ text: String, path: String) throws(MerchantKeyError) -> [(label: String, der: [UInt8])] {
        var blocks: [(label: String, der: [UInt8])] = []
        var label: String? = nil
        var body = ""
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let current = label {
                if line == "-----END \(current)-----" {
                    guard let der = Data(base64Encoded: body) else {
                        throw MerchantKeyError(.unrecognizedFormat, path: path, "the \(current) PEM block is not valid Base64")
                    }
                    blocks.append((current, Array(der)))
                    label = nil
                    body = ""
                } else if line.hasPrefix("Proc-Type:"), line.contains("ENCRYPTED") {
                    throw MerchantKeyError(
                        .encrypted, path: path,
                        "the key is password-protected (legacy PEM encryption); store it unencrypted (openssl ec -in KEY -out NEW) with mode 0600 or 0640"
                    )
                } else if !line.contains(":") {
                    body += line
                }
            } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 {
                label = String(line.dropFirst(11).dropLast(5))
            }
        }
        return blocks
    }

    // MARK: DER

    private static func scalar(fromDER der: [UInt8], path: String) throws(MerchantKeyError) -> [UInt8] {
        let fields = try sequenceFields(der, path: path)
        if fields.count >= 2, fields[1].tag == 0x30 {
            return try scalar(fromPKCS8: der, path: path)
        }
        return try scalar(fromSEC1: der, path: path)
    }

    private static func scalar(fromPKCS8 der: [UInt8], path: String) throws(MerchantKeyError) -> [UInt8] {
        let fields = try sequenceFields(der, path: path)
        guard fields.count >= 3, fields[0].tag == 0x02, fields[0].value == [0x00] || fields[0].value == [0x01],
            fields[1].tag == 0x30, let algorithm = fields[1].children, fields[2].tag == 0x04
        else { throw unrecognized(path) }
        guard algorithm.first?.tag == 0x06, algorithm.first?.value == ecPublicKeyOID else {
            throw MerchantKeyError(.notP256, path: path, "PKCS#8 key for an algorithm other than EC; VAS needs a P-256 EC key")
        }
        guard algorithm.count >= 2, algorithm[1].tag == 0x06, algorithm[1].value == p256OID else {
            throw MerchantKeyError(.notP256, path: path, "PKCS#8 EC key on a curve other than P-256 (prime256v1)")
        }
        return try scalar(fromSEC1: fields[2].value, path: path)
    }

    private static func scalar(fromSEC1 der: [UInt8], path: String) throws(MerchantKeyError) -> [UInt8] {
        let fields = try sequenceFields(der, path: path)
        guard fields.count >= 2, fields[0].tag == 0x02, fields[0].value == [0x01], fields[1].tag == 0x04 else {
            throw unrecognized(path)
        }
        if let parameters = fields.first(0xA0) {
            guard let oid = parameters.children?.first, oid.tag == 0x06, oid.value == p256OID else {
                throw MerchantKeyError(.notP256, path: path, "SEC1 key on a curve other than P-256 (prime256v1)")
            }
        }
        let scalar = fields[1].value
        guard scalar.count <= MerchantKey.scalarLength else {
            throw MerchantKeyError(.notP256, path: path, "a \(scalar.count)-byte private scalar is not a P-256 key (32 bytes)")
        }
        return [UInt8](repeating: 0, count: MerchantKey.scalarLength - scalar.count) + scalar
    }

    private static func sequenceFields(_ der: [UInt8], path: String) throws(MerchantKeyError) -> [TLVNode] {
        guard let nodes = try? BERTLVParser.parse(der, limits: derLimits), nodes.count == 1,
            nodes[0].tag == 0x30, let fields = nodes[0].children
        else { throw unrecognized(path) }
        return fields
    }

    private static func unrecognized(_ path: String) -> MerchantKeyError {
        MerchantKeyError(
            .unrecognizedFormat, path: path,
            "not a P-256 private key in SEC1 or PKCS#8 (PEM or DER) or a 64-digit hex scalar; convert it with openssl ec or openssl pkey"
        )
    }
}
