import NDEF
import Testing

/// The Smart Tap messages published byte by byte in kormax/google-smart-tap's README are NDEF,
/// nested several levels deep; the codec reads them all and writes them again.
@Suite struct SmartTapRecordTests {
    private func external(_ type: String, _ payload: [UInt8]) -> NDEFRecord {
        .external(type, payload: payload)
    }

    private let sessionID = hex("6b159a80fc8283fd")

    /// NEGOTIATE SECURE CHANNEL request: `ngr` (version 0001, then `ses` and `cpr`), `cpr`
    /// (nonce, auth flag, key, key version, then `sig` and `cld`).
    @Test func theNegotiateRequestReadsAsNestedNDEF() throws {
        let bytes = try NDEFVectors.named("kormax-smart-tap/negotiate-request")
        let outer = try NDEFMessage(parsing: bytes)
        #expect(outer.records.count == 1)
        let ngr = outer.records[0]
        #expect(ngr.decoded() == .external(type: "ngr", payload: ngr.payload))
        #expect(Array(ngr.payload.prefix(2)) == [0x00, 0x01])
        let inner = try ngr.nestedMessage(skipping: 2)
        #expect(inner.records.map(\.type) == [Array("ses".utf8), Array("cpr".utf8)])
        #expect(inner.records[0].payload == sessionID + [0x00, 0x01])
        let cpr = inner.records[1]
        #expect(cpr.payload.count == 160)
        let crypto = try cpr.nestedMessage(limits: NDEFLimits.standard.nested, skipping: 70)
        #expect(crypto.records.map(\.type) == [Array("sig".utf8), Array("cld".utf8)])
        #expect(crypto.records[0].payload.count == 73)
        #expect(Array(crypto.records[0].payload.prefix(3)) == [0x04, 0x30, 0x46])
        #expect(crypto.records[1].payload == [0x04, 0x01, 0x02, 0x03, 0x04])
    }

    /// The same request built from its fields: the `ses` record, and everything around it,
    /// byte for byte.
    @Test func theEncoderReproducesTheNegotiateRequestAndItsSessionRecord() throws {
        let bytes = try NDEFVectors.named("kormax-smart-tap/negotiate-request")
        let ses = external("ses", sessionID + [0x00, 0x01])
        let published = NDEFMessage(records: [ses]).encoded()
        #expect(published == hex("D4 03 0A 73 65 73") + sessionID + [0x00, 0x01])
        let parsed = try NDEFMessage(parsing: bytes)
        let cprPayload = try NDEFMessage(parsing: Array(parsed.records[0].payload.dropFirst(2))).records[1].payload
        let cprFields = Array(cprPayload.prefix(70))
        let signature = Array(try NDEFMessage(parsing: Array(cprPayload.dropFirst(70))).records[0].payload.dropFirst())
        let cpr = external("cpr", cprFields + NDEFMessage(records: [external("sig", [0x04] + signature), external("cld", hex("04 01020304"))]).encoded())
        let ngr = external("ngr", [0x00, 0x01] + NDEFMessage(records: [ses, cpr]).encoded())
        let encoded = NDEFMessage(records: [ngr]).encoded()
        #expect(encoded == bytes)
        // In the nested message the session record is the first of two: MB without ME (94).
        #expect(Array(encoded[8..<24]) == hex("94 03 0A 73 65 73") + sessionID + [0x00, 0x01])
    }

    /// GET DATA response: `srs` holding `ses` and the record bundle `reb` (flag 03, then the
    /// encrypted bundle, which the codec keeps untouched).
    @Test func theGetDataResponseReadsAsNestedNDEF() throws {
        let outer = try NDEFMessage(parsing: NDEFVectors.named("kormax-smart-tap/get-data-response"))
        #expect(outer.records.map(\.type) == [Array("srs".utf8)])
        let inner = try outer.records[0].nestedMessage()
        #expect(inner.records.map(\.type) == [Array("ses".utf8), Array("reb".utf8)])
        #expect(inner.records[0].payload == sessionID + [0x02, 0x01])
        #expect(inner.records[1].payload.count == 0xB8)
        #expect(inner.records[1].payload.first == 0x03)
        #expect(NDEFMessage(records: outer.records).encoded() == (try NDEFVectors.named("kormax-smart-tap/get-data-response")))
    }

    /// GET DATA request: `srq` (version, then `ses`, `mer` holding `cld`, `slr` holding `str`,
    /// and `pcr`), rebuilt byte for byte.
    @Test func theGetDataRequestRoundTrips() throws {
        let bytes = try NDEFVectors.named("kormax-smart-tap/get-data-request")
        let srq = try NDEFMessage(parsing: bytes).records[0]
        let inner = try srq.nestedMessage(skipping: 2)
        #expect(inner.records.map(\.type) == ["ses", "mer", "slr", "pcr"].map { Array($0.utf8) })
        let mer = try inner.records[1].nestedMessage(limits: NDEFLimits.standard.nested)
        #expect(mer.records == [external("cld", hex("04 01020304"))])
        let rebuilt = NDEFMessage(records: [
            external("srq", [0x00, 0x01] + NDEFMessage(records: [
                external("ses", sessionID + [0x01, 0x01]),
                external("mer", NDEFMessage(records: [external("cld", hex("04 01020304"))]).encoded()),
                external("slr", NDEFMessage(records: [external("str", [0x00])]).encoded()),
                external("pcr", hex("41 00 00 00 04")),
            ]).encoded())
        ])
        #expect(rebuilt.encoded() == bytes)
    }

    /// NEGOTIATE response and the SELECT answer (a record with an ID: type and ID both `mdn`).
    @Test func theNegotiateResponseAndSelectAnswerRead() throws {
        let nrs = try NDEFMessage(parsing: NDEFVectors.named("kormax-smart-tap/negotiate-response")).records[0]
        let inner = try nrs.nestedMessage()
        #expect(inner.records.map(\.type) == [Array("ses".utf8), Array("dpk".utf8)])
        #expect(inner.records[1].payload.count == 33)
        let answer = try NDEFVectors.named("kormax-smart-tap/select-smart-tap-answer")
        let select = try NDEFMessage(parsing: Array(answer.dropFirst(4)))
        #expect(select.records.count == 1)
        #expect(select.records[0].type == Array("mdn".utf8))
        #expect(select.records[0].id == Array("mdn".utf8))
        #expect(select.records[0].payload.count == 33)
        #expect(select.encoded() == Array(answer.dropFirst(4)))
    }

    /// PUSH DATA request: well-known Text and URI records that carry their Smart Tap name in the
    /// ID field, four levels down. Its currency record (`T`, id `ccd`, payload `USD`) has no
    /// status byte, so it is not an RTD Text: the codec keeps it and says why.
    @Test func thePushDataRequestsWellKnownRecordsDecode() throws {
        let spr = try NDEFMessage(parsing: NDEFVectors.named("kormax-smart-tap/push-data-request")).records[0]
        let level2 = try spr.nestedMessage(skipping: 2)
        #expect(level2.records.map(\.type) == ["ses", "bpr", "nsr", "ssr"].map { Array($0.utf8) })
        let limits2 = NDEFLimits.standard.nested
        let basket = try level2.records[1].nestedMessage(limits: limits2)
        #expect(basket.records[1].id == Array("ccd".utf8))
        #expect(basket.records[1].payload == Array("USD".utf8))
        guard case .malformed = basket.records[1].decoded() else {
            Issue.record("USD decoded as \(basket.records[1].decoded())")
            return
        }
        let newService = try level2.records[2].nestedMessage(limits: limits2, skipping: 1)
        #expect(newService.records.map { $0.decoded() } == [.text(NDEFText(language: "en", text: "PASS")), .uri("https://example.com")])
        let status = try level2.records[3].nestedMessage(limits: limits2)
        let usage = try status.records[1].nestedMessage(limits: limits2.nested, skipping: 1)
        #expect(usage.records.map { $0.decoded() } == [
            .text(NDEFText(language: "en", text: "SERVICE_USAGE_TITLE")), .text(NDEFText(language: "en", text: "SERVICE_USAGE_DESCRIPTION")),
        ])
        #expect(try NDEFMessage(parsing: NDEFVectors.named("kormax-smart-tap/push-data-response")).records[0].nestedMessage().records.count == 1)
    }

    /// A prefix longer than the payload, and a nested fault, give offsets within the payload.
    @Test func nestedErrorsCountOffsetsFromThePayload() {
        let record = external("ngr", [0x00, 0x01, 0xD4, 0x03])
        do {
            _ = try record.nestedMessage(skipping: 2)
            Issue.record("a truncated nested message parsed")
        } catch {
            #expect(error.code == .truncated)
            #expect(error.offset == 4)
        }
        #expect(throws: NDEFError.self) { try record.nestedMessage(skipping: 5) }
    }
}
