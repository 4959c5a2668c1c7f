import ISO7816
import NDEF
import Testing
import VAS

@testable import SmartTap
import Wallets

/// kormax/google-smart-tap's published exchange (Vectors/kormax_google_smart_tap.json): the reader
/// reads the phone's answers, and its encoder reproduces the requests byte for byte from their
/// fields.
@Suite struct SmartTapRecordVectorTests {
    static let sessionID: [UInt8] = [0x6B, 0x15, 0x9A, 0x80, 0xFC, 0x82, 0x83, 0xFD]
    static let limits = SmartTapLimits.standard

    @Test func readsTheOSEAnswer() throws {
        let answer = try SmartTapSelectAnswer(oseData: try [UInt8](hex: TestVectors.kormax().ose_answer))
        #expect(answer.isAndroid)
        #expect(answer.version == [0x00, 0x01])
        #expect(answer.deviceNonce?.hexString == "56D2EC8F857F0049AA54F1CA1DE2791B5693A7014E6E4565D5644B1C2A305136")
        #expect(answer.deviceEphemeralKey?.hexString == "03DFEE38DBDB68A607383AD622640B180CC7E27D796B4E788C40E5D994291C71FC")
        #expect(answer.hasSecureChannelMaterial)
    }

    @Test func readsTheSmartTap2Answer() throws {
        let answer = try SmartTapAppletAnswer(data: try [UInt8](hex: TestVectors.kormax().smart_tap_2_answer), limits: Self.limits)
        #expect(answer.minimumVersion == [0x00, 0x00])
        #expect(answer.maximumVersion == [0x00, 0x01])
        #expect(answer.supports21)
        #expect(answer.deviceNonce.hexString == "56D2EC8F857F0049AA54F1CA1DE2791B5693A7014E6E4565D5644B1C2A305136")
    }

    /// The NEGOTIATE request's fields are read back, and the encoder rebuilds it (and its `ses`
    /// record) byte for byte from them.
    @Test func rebuildsTheNegotiateRequest() throws {
        let bytes = try [UInt8](hex: TestVectors.kormax().negotiate_request)
        let ngr = try #require(try NDEFMessage(parsing: bytes).records.first)
        #expect(SmartTapRecords.name(of: ngr) == "ngr")
        #expect(Array(ngr.payload.prefix(2)) == SmartTapRecords.requestVersion)
        let inner = try NDEFMessage(parsing: Array(ngr.payload.dropFirst(2))).records
        let ses = try #require(SmartTapRecords.first("ses", in: inner))
        #expect(ses.payload == Self.sessionID + [0x00, 0x01])
        let cpr = try #require(SmartTapRecords.first("cpr", in: inner)).payload
        let nonce = Array(cpr[0..<32])
        #expect(cpr[32] == 0x01)
        let key = Array(cpr[33..<66])
        #expect(Array(cpr[66..<70]) == [0, 0, 0, 1])
        let nested = try NDEFMessage(parsing: Array(cpr[70...])).records
        let sig = try #require(SmartTapRecords.first("sig", in: nested)).payload
        #expect(sig.first == 0x04)
        #expect(try #require(SmartTapRecords.first("cld", in: nested)).payload == [0x04, 0x01, 0x02, 0x03, 0x04])

        let session = SmartTapRecords.session(id: Self.sessionID, sequence: 0)
        #expect(NDEFMessage(records: [session]).encoded() == [0xD4, 0x03, 0x0A] + Array("ses".utf8) + Self.sessionID + [0x00, 0x01])
        let rebuilt = SmartTapRecords.negotiateRequest(
            session: session,
            cryptoParameters: SmartTapRecords.cryptoParameters(
                readerNonce: nonce, readerKey: key, keyVersion: 1, signature: Array(sig.dropFirst()), collectorID: 0x0102_0304))
        #expect(rebuilt.encoded() == bytes)
    }

    @Test func readsTheNegotiateResponse() throws {
        let vectors = try TestVectors.kormax()
        let response = try SmartTapNegotiateResponse(
            data: try [UInt8](hex: vectors.negotiate_response), sessionID: Self.sessionID, fallbackKey: nil, limits: Self.limits)
        #expect(response.session.sequence == 1)
        #expect(response.deviceKey.hexString == "03DFEE38DBDB68A607383AD622640B180CC7E27D796B4E788C40E5D994291C71FC")
        #expect(throws: SmartTapFailure.self) {
            try SmartTapNegotiateResponse(data: try [UInt8](hex: vectors.negotiate_response), sessionID: [UInt8](repeating: 0, count: 8), fallbackKey: nil, limits: Self.limits)
        }
    }

    /// Pass and payment, session sequence 1, collector 01020304: kormax's GET DATA request, byte
    /// for byte.
    @Test func rebuildsTheGetDataRequest() throws {
        let request = SmartTapRecords.serviceRequest(
            session: SmartTapRecords.session(id: Self.sessionID, sequence: 1), collectorID: 0x0102_0304, mode: .passAndPayment)
        #expect(request.encoded() == (try [UInt8](hex: TestVectors.kormax().get_data_request)))
    }

    /// The GET DATA answer: session sequence 2, a bundle flagged `03` (compressed), IV, ciphertext, MAC.
    @Test func readsTheGetDataResponse() throws {
        let response = try SmartTapServiceResponse(
            data: try [UInt8](hex: TestVectors.kormax().get_data_response), sessionID: Self.sessionID, limits: Self.limits)
        #expect(response.session.sequence == 2)
        #expect(response.bundle.flags == 0x03)
        #expect(response.bundle.isCompressed)
        #expect(response.bundle.iv.hexString == "1C5B7D2E9F0F6937A7C043DC")
        #expect(response.bundle.ciphertext.count == 183 - 12 - 32)
        #expect(response.bundle.mac.count == 32)
    }

    @Test func modesMapFromVASModes() {
        #expect(SmartTapMode(.vasOnly).vasTypeByte == 0x01)
        #expect(SmartTapMode(.vasOrPayment).vasTypeByte == 0x08)
        #expect(SmartTapMode(.vasAndPayment).vasTypeByte == 0x04)
    }
}
