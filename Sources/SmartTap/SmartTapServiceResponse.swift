import NDEF

/// The phone's answer to GET DATA (all GET MORE DATA parts joined): `srs`, holding the session
/// record and the record bundle (`reb`).
struct SmartTapServiceResponse: Sendable, Hashable {
    var session: SmartTapSession
    var bundle: SmartTapRecordBundle

    init(data: [UInt8], sessionID: [UInt8], limits: SmartTapLimits) throws(SmartTapFailure) {
        let records = try SmartTapRecords.message(data, "the GET DATA answer", limits: limits)
        guard let srs = SmartTapRecords.first("srs", in: records) else {
            throw SmartTapFailure(.malformedResponse, "the GET DATA answer has no service response record (srs)")
        }
        let inner = try SmartTapRecords.message(srs.payload, "the service response (srs)", limits: limits)
        session = try SmartTapSession(in: inner, expecting: sessionID, what: "the GET DATA answer")
        guard let reb = SmartTapRecords.first("reb", in: inner) else {
            throw SmartTapFailure(.malformedResponse, "the GET DATA answer has no record bundle (reb)")
        }
        bundle = try SmartTapRecordBundle(payload: reb.payload)
    }
}
