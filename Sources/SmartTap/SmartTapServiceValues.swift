import ISO7816
import NDEF

/// What a decrypted record bundle holds: service values (`asv`), each with one object record
/// (`ly`, `of`, `gc`, `gr`, ...) whose nested records carry the issuer (`i`), the object id
/// (`oid`) and the redemption value (`n`); and the customer (`cus`: `cid`, `cut`).
struct SmartTapServiceValues: Sendable, Hashable {
    var customerID: String?
    var tapID: String?
    var objects: [SmartTapServiceObject] = []

    /// Value format bytes (first payload byte of `n`, `i`, `oid`, `cid`, `cut`).
    enum Format: UInt8 {
        case unspecified = 0, ascii, utf8, utf16, binary, bcd
    }

    init(decrypted bytes: [UInt8], limits: SmartTapLimits) throws(SmartTapFailure) {
        let records = try SmartTapRecords.message(bytes, "the decrypted record bundle", limits: limits)
        for record in records {
            switch SmartTapRecords.name(of: record) {
            case "asv":
                let inner = try SmartTapRecords.message(record.payload, "a service value (asv)", limits: limits)
                try read(serviceValue: inner, limits: limits)
            case "cus":
                try read(customer: record, limits: limits)
            default:
                continue
            }
        }
    }

    private mutating func read(serviceValue records: [NDEFRecord], limits: SmartTapLimits) throws(SmartTapFailure) {
        let issuer = SmartTapRecords.first("i", in: records).map(Self.identifier)
        for record in records {
            let name = SmartTapRecords.name(of: record)
            if name == "cus" {
                try read(customer: record, limits: limits)
                continue
            }
            guard let kind = SmartTapServiceObject.Kind(recordType: name) else { continue }
            guard objects.count < limits.maxObjects else {
                throw SmartTapFailure(.malformedResponse, "the phone sent more than \(limits.maxObjects) service objects")
            }
            let fields = try SmartTapRecords.message(record.payload, "a \(name) object", limits: limits)
            objects.append(
                SmartTapServiceObject(
                    type: kind,
                    issuerID: SmartTapRecords.first("i", in: fields).map(Self.identifier) ?? issuer,
                    objectID: SmartTapRecords.first("oid", in: fields).map(Self.text),
                    value: SmartTapRecords.first("n", in: fields).map(Self.text)
                ))
        }
    }

    private mutating func read(customer record: NDEFRecord, limits: SmartTapLimits) throws(SmartTapFailure) {
        let fields = try SmartTapRecords.message(record.payload, "the customer record (cus)", limits: limits)
        if let id = SmartTapRecords.first("cid", in: fields) { customerID = Self.hex(value: id.payload) }
        if let tap = SmartTapRecords.first("cut", in: fields) { tapID = Self.hex(value: tap.payload) }
    }

    /// A binary issuer id: decimal when it is at most 8 bytes (Google's issuer numbers), hex when
    /// longer; text formats as text. An object id is ``text(_:)``: its bytes in hex, as the
    /// phone sent them (`00000000000000A1`).
    static func identifier(_ record: NDEFRecord) -> String {
        guard let first = record.payload.first, let format = Format(rawValue: first), format == .binary else {
            return text(record)
        }
        let value = record.payload.dropFirst()
        guard !value.isEmpty, value.count <= 8 else { return Array(value).hexString }
        return String(value.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// A value's hex after its format byte.
    static func hex(value payload: [UInt8]) -> String {
        Array(payload.first.flatMap(Format.init(rawValue:)) != nil ? payload.dropFirst() : payload[...]).hexString
    }

    /// A value as text: after its format byte, ASCII/UTF-8/unspecified as UTF-8, UTF-16 as
    /// big-endian UTF-16, BCD as digits, binary as hex. Text that is not printable UTF-8 is hex.
    static func text(_ record: NDEFRecord) -> String {
        let payload = record.payload
        guard let first = payload.first, let format = Format(rawValue: first) else {
            return printable(payload) ?? payload.hexString
        }
        let value = Array(payload.dropFirst())
        switch format {
        case .unspecified, .ascii, .utf8:
            return printable(value) ?? value.hexString
        case .utf16:
            guard value.count % 2 == 0 else { return value.hexString }
            let units = stride(from: 0, to: value.count, by: 2).map { UInt16(value[$0]) << 8 | UInt16(value[$0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        case .bcd:
            return value.hexString
        case .binary:
            return value.hexString
        }
    }

    /// `bytes` as a string when they are valid UTF-8 without control characters.
    static func printable(_ bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return text
    }
}
