import NDEF

/// The answer to SELECT `A000000476D0000111` (Smart Tap 2), for phones whose OSE.VAS.01 answer
/// lacks the device nonce: minimum and maximum version (2 bytes each), then an NDEF message whose
/// `mdn` record holds the format byte and the 32-byte device nonce.
struct SmartTapAppletAnswer: Sendable, Hashable {
    var minimumVersion: [UInt8]
    var maximumVersion: [UInt8]
    var deviceNonce: [UInt8]

    init(data: [UInt8], limits: SmartTapLimits) throws(SmartTapFailure) {
        guard data.count > 4 else {
            throw SmartTapFailure(.malformedResponse, "the Smart Tap 2 SELECT answer is \(data.count) bytes, too short for versions and nonce")
        }
        minimumVersion = Array(data[0..<2])
        maximumVersion = Array(data[2..<4])
        let records = try SmartTapRecords.message(Array(data[4...]), "the Smart Tap 2 SELECT answer", limits: limits)
        guard let nonce = SmartTapRecords.first("mdn", in: records) ?? records.first(where: { $0.id == Array("mdn".utf8) }) else {
            throw SmartTapFailure(.malformedResponse, "the Smart Tap 2 SELECT answer has no device nonce (mdn)")
        }
        guard nonce.payload.count == 33 else {
            throw SmartTapFailure(.malformedResponse, "the device nonce (mdn) is \(nonce.payload.count) bytes, not a format byte and 32")
        }
        deviceNonce = Array(nonce.payload.dropFirst())
    }

    /// Version `0001` (Smart Tap 2.1) lies between the minimum and the maximum.
    var supports21: Bool {
        minimumVersion.lexicographicallyPrecedes([0x00, 0x02]) && !maximumVersion.lexicographicallyPrecedes([0x00, 0x01])
    }
}
