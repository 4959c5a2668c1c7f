import ISO7816
import NDEF

/// The session record (`ses`) a phone answers with: the session id the terminal chose, the
/// phone's sequence number and a status byte (`01` OK).
struct SmartTapSession: Sendable, Hashable {
    var id: [UInt8]
    var sequence: UInt8
    var status: UInt8

    /// Status bytes other than OK, by name (kormax/google-smart-tap, "Statuses").
    static let statusNames: [UInt8: String] = [
        0x00: "unknown", 0x02: "ndef_format_invalid", 0x03: "unsupported_version", 0x04: "invalid_sequence_number",
        0x05: "unknown_merchant", 0x06: "merchant_info_missing", 0x07: "service_data_missing",
        0x08: "resend_request", 0x09: "data_not_available_yet",
    ]

    /// The `ses` record among `records`, checked against the terminal's session id.
    init(in records: [NDEFRecord], expecting id: [UInt8], what: String) throws(SmartTapFailure) {
        guard let record = SmartTapRecords.first("ses", in: records) else {
            throw SmartTapFailure(.malformedResponse, "\(what) has no session record (ses)")
        }
        guard record.payload.count == 10 else {
            throw SmartTapFailure(.malformedResponse, "\(what)'s session record is \(record.payload.count) bytes, not 10")
        }
        self.id = Array(record.payload.prefix(8))
        self.sequence = record.payload[8]
        self.status = record.payload[9]
        guard self.id == id else { throw SmartTapFailure(.malformedResponse, "\(what) names another session id") }
        guard status == SmartTapRecords.sessionOK else {
            let name = Self.statusNames[status] ?? [status].hexString
            throw SmartTapFailure(.malformedResponse, "\(what)'s session status is \(name)")
        }
    }
}
