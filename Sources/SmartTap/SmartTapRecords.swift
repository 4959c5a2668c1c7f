import NDEF

/// The Smart Tap records a terminal builds, and how records are named (docs/smarttap.md, "The
/// protocol as implemented"). Every record is an NFC Forum external-type record (TNF 4) whose
/// type is the short name (`ses`, `cpr`...); a nested message is the payload of its parent.
enum SmartTapRecords {
    /// The version every Smart Tap 2.1 request record starts with (`ngr`, `srq`).
    static let requestVersion: [UInt8] = [0x00, 0x01]
    /// The format byte of binary values (`sig`, `cld`).
    static let binaryFormat: UInt8 = 0x04
    /// The session status byte "OK".
    static let sessionOK: UInt8 = 0x01
    /// `str`: ask for every service type.
    static let allServices: UInt8 = 0x00
    /// `pcr` byte 1: standalone terminal (`01`) that inflates zlib (`40`).
    static let systemCapabilities: UInt8 = 0x41

    /// An external-type record named `name`.
    static func record(_ name: String, _ payload: [UInt8]) -> NDEFRecord {
        NDEFRecord(tnf: .external, type: Array(name.utf8), payload: payload)
    }

    /// `ses`: the 8-byte session id, the sequence number and the status.
    static func session(id: [UInt8], sequence: UInt8, status: UInt8 = sessionOK) -> NDEFRecord {
        record("ses", id + [sequence, status])
    }

    /// `cld`: the collector id, binary.
    static func collectorID(_ id: UInt32) -> NDEFRecord {
        record("cld", [binaryFormat] + id.bigEndianBytes)
    }

    /// `cpr`: reader nonce, live-authentication byte `01`, the reader's compressed ephemeral key,
    /// the key version, then a message of `sig` (binary, DER ECDSA) and `cld`.
    static func cryptoParameters(readerNonce: [UInt8], readerKey: [UInt8], keyVersion: UInt32, signature: [UInt8], collectorID id: UInt32) -> NDEFRecord {
        let nested = NDEFMessage(records: [record("sig", [binaryFormat] + signature), collectorID(id)])
        return record("cpr", readerNonce + [0x01] + readerKey + keyVersion.bigEndianBytes + nested.encoded())
    }

    /// `ngr`: the version, then a message of `ses` and `cpr`. The whole NEGOTIATE data field.
    static func negotiateRequest(session: NDEFRecord, cryptoParameters: NDEFRecord) -> NDEFMessage {
        NDEFMessage(records: [record("ngr", requestVersion + NDEFMessage(records: [session, cryptoParameters]).encoded())])
    }

    /// `pcr`: system, user interface, checkout and CVM capabilities, then the VAS type.
    static func posCapabilities(mode: SmartTapMode) -> NDEFRecord {
        record("pcr", [systemCapabilities, 0x00, 0x00, 0x00, mode.vasTypeByte])
    }

    /// `srq`: the version, then a message of `ses`, `mer` (holding `cld`), `slr` (holding `str`)
    /// and `pcr`. The whole GET DATA data field.
    static func serviceRequest(session: NDEFRecord, collectorID id: UInt32, mode: SmartTapMode) -> NDEFMessage {
        let merchant = record("mer", NDEFMessage(records: [collectorID(id)]).encoded())
        let services = record("slr", NDEFMessage(records: [record("str", [allServices])]).encoded())
        let body = NDEFMessage(records: [session, merchant, services, posCapabilities(mode: mode)])
        return NDEFMessage(records: [record("srq", requestVersion + body.encoded())])
    }

    /// A record's Smart Tap name: the type of an external record; of a well-known record, its id
    /// when it has one (the `n`, `cpl` values are Text records named by id), else its type.
    static func name(of record: NDEFRecord) -> String {
        let bytes = record.tnf == .external || record.id.isEmpty ? record.type : record.id
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The first record named `name`.
    static func first(_ name: String, in records: [NDEFRecord]) -> NDEFRecord? {
        records.first { Self.name(of: $0) == name }
    }

    /// Parses `bytes` as one nested message under `limits`, or throws a malformed-response
    /// failure naming `what`.
    static func message(_ bytes: [UInt8], _ what: String, limits: SmartTapLimits) throws(SmartTapFailure) -> [NDEFRecord] {
        var ndefLimits = NDEFLimits.standard
        ndefLimits.maxRecords = limits.maxRecords
        ndefLimits.maxMessageBytes = max(limits.maxResponseBytes, limits.maxInflatedBytes)
        do {
            return try NDEFMessage(parsing: bytes, limits: ndefLimits).records
        } catch {
            throw SmartTapFailure(.malformedResponse, "\(what) is not an NDEF message (\(error))")
        }
    }
}
