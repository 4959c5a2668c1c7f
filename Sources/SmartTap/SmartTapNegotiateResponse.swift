import NDEF

/// The phone's answer to NEGOTIATE SECURE CHANNEL: `nrs`, holding the session record and the
/// phone's compressed ephemeral key (`dpk`, 33 bytes).
struct SmartTapNegotiateResponse: Sendable, Hashable {
    var session: SmartTapSession
    var deviceKey: [UInt8]

    /// `fallbackKey` is the OSE answer's `C3`, used when the answer has no `dpk`.
    init(data: [UInt8], sessionID: [UInt8], fallbackKey: [UInt8]?, limits: SmartTapLimits) throws(SmartTapFailure) {
        let records = try SmartTapRecords.message(data, "the NEGOTIATE answer", limits: limits)
        guard let nrs = SmartTapRecords.first("nrs", in: records) else {
            throw SmartTapFailure(.malformedResponse, "the NEGOTIATE answer has no negotiate response record (nrs)")
        }
        let inner = try SmartTapRecords.message(nrs.payload, "the negotiate response (nrs)", limits: limits)
        session = try SmartTapSession(in: inner, expecting: sessionID, what: "the NEGOTIATE answer")
        guard let key = SmartTapRecords.first("dpk", in: inner)?.payload ?? fallbackKey else {
            throw SmartTapFailure(.malformedResponse, "the NEGOTIATE answer has no device ephemeral key (dpk)")
        }
        guard key.count == 33, key[0] == 0x02 || key[0] == 0x03 else {
            throw SmartTapFailure(.malformedResponse, "the device ephemeral key (dpk) is \(key.count) bytes, not a 33-byte compressed point")
        }
        deviceKey = key
    }
}
