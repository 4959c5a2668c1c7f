import Foundation
import NIOCore
import ISO7816
import PassTapCore
import PassTapProtocol
import Testing

/// Encodes `value` with the wire encoder and parses it back as a generic JSON object.
private func jsonObject<Value: Encodable>(_ value: Value) throws -> [String: Any] {
    let line = try NDJSON.encodeLine(value)
    let data = Data(line.readableBytesView.dropLast())
    return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
}

@Suite(.timeLimit(.minutes(1))) struct JSONRPCIDTests {
    @Test(arguments: [
        (#""abc""#, JSONRPCID.string("abc")),
        ("42", .number(42)),
        ("-7", .number(-7)),
        ("1.5", .fractional(1.5)),
        ("null", .null),
        ("9223372036854775807", .number(Int64.max)),
        // A client counting in UInt64 (the rpc fuzz target's check): echoed digit for digit, not
        // as 9.2233720368547758e+18.
        ("9223372036854775808", .unsigned(9_223_372_036_854_775_808)),
        ("18446744073709551615", .unsigned(UInt64.max)),
    ])
    func idsOfEveryKindRoundTrip(json: String, id: JSONRPCID) throws {
        let decoded = try JSONDecoder().decode(JSONRPCID.self, from: Data(json.utf8))
        #expect(decoded == id)
        let encoded = try JSONEncoder().encode(decoded)
        if case .fractional = id {} else { #expect(String(decoding: encoded, as: UTF8.self) == json) }
        let reencoded = try JSONDecoder().decode(JSONRPCID.self, from: encoded)
        #expect(reencoded == id)
    }

    @Test(arguments: ["true", "{}", "[1]"])
    func idsThatAreNotStringNumberOrNullAreRejected(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONRPCID.self, from: Data(json.utf8)) }
    }
}

@Suite(.timeLimit(.minutes(1))) struct JSONRPCEnvelopeTests {
    private func envelope(_ json: String) throws -> JSONRPCEnvelope {
        try NDJSON.decode(JSONRPCEnvelope.self, from: Data(json.utf8))
    }

    @Test func anAbsentIDIsANotificationAndANullIDIsNot() throws {
        let notification = try envelope(#"{"jsonrpc":"2.0","method":"event","params":{}}"#)
        #expect(notification.id == nil)
        #expect(notification.isNotification)
        let nullID = try envelope(#"{"jsonrpc":"2.0","id":null,"method":"status"}"#)
        #expect(nullID.id == .null)
        #expect(!nullID.isNotification)
    }

    @Test func aRequestNeedsVersionTwoAndAStringMethod() throws {
        #expect(try envelope(#"{"jsonrpc":"2.0","id":1,"method":"status"}"#).requestMethod() == .success("status"))
        for bad in [#"{"id":1,"method":"status"}"#, #"{"jsonrpc":"2.0","id":1}"#, #"{"jsonrpc":"2.0","id":1,"method":3}"#] {
            guard case .failure(let error) = try envelope(bad).requestMethod() else {
                Issue.record("accepted \(bad)")
                continue
            }
            #expect(error.code == .invalidRequest)
        }
    }

    @Test func aResponseEnvelopeCarriesItsError() throws {
        let decoded = try envelope(
            #"{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"no card","data":{"reason":"no_card"}}}"#)
        #expect(decoded.id == .number(3))
        #expect(decoded.error?.code == .noCard)
        #expect(decoded.error?.reason == "no_card")
        #expect(!decoded.hasResult)
    }
}

@Suite(.timeLimit(.minutes(1))) struct JSONRPCMessageTests {
    @Test func aRequestWithoutIDOmitsTheMember() throws {
        let object = try jsonObject(JSONRPCRequest<NoParams>(id: nil, method: .status, params: nil))
        #expect(object["jsonrpc"] as? String == "2.0")
        #expect(object["method"] as? String == "status")
        #expect(object["id"] == nil)
        #expect(object["params"] == nil)
    }

    @Test func aRequestRoundTripsWithTypedParams() throws {
        let request = JSONRPCRequest(
            id: .number(9), method: .cardTransmit,
            params: CardTransmitParams(reader: .pcsc("R 00"), apdu: "00A4040000", raw: true))
        let line = try NDJSON.encodeLine(request)
        let decoded = try NDJSON.decode(JSONRPCRequest<CardTransmitParams>.self, from: line)
        #expect(decoded.id == .number(9))
        #expect(decoded.method == "card.transmit")
        #expect(decoded.params == request.params)
    }

    @Test func aSuccessResponseHasAResultAndNoError() throws {
        let response = JSONRPCResponse(id: .string("a"), result: EventsSubscribeResult(instance: "i", oldestSeq: 3, nextSeq: 9))
        let object = try jsonObject(response)
        #expect(object["error"] == nil)
        let result = try #require(object["result"] as? [String: Any])
        #expect(result["oldest_seq"] as? Int == 3)
        #expect(result["next_seq"] as? Int == 9)
        #expect(result["instance"] as? String == "i")
        let decoded = try NDJSON.decode(JSONRPCResponse<EventsSubscribeResult>.self, from: try NDJSON.encodeLine(response))
        #expect(try decoded.outcome.get() == EventsSubscribeResult(instance: "i", oldestSeq: 3, nextSeq: 9))
    }

    @Test func anErrorResponseHasAnErrorWithAReasonAndNoResult() throws {
        let error = JSONRPCError(.transportError, "the card left the field", transportCode: "card_removed")
        let object = try jsonObject(JSONRPCResponse<CardTransmitResult>(id: .number(1), error: error))
        #expect(object["result"] == nil)
        let member = try #require(object["error"] as? [String: Any])
        #expect(member["code"] as? Int == -32004)
        #expect(member["message"] as? String == "the card left the field")
        let data = try #require(member["data"] as? [String: Any])
        #expect(data["reason"] as? String == "transport_error")
        #expect(data["code"] as? String == "card_removed")
        let decoded = try NDJSON.decode(
            JSONRPCResponse<CardTransmitResult>.self,
            from: try NDJSON.encodeLine(JSONRPCResponse<CardTransmitResult>(id: .number(1), error: error)))
        #expect(decoded.outcome == .failure(error))
    }

    @Test func statusUsesTheWireNamesProtocolAndUptimeS() throws {
        let status = StatusResult(
            version: "1.2.3", protocolVersion: 1, instance: "x", uptimeSeconds: 1.5, readers: [],
            health: StatusHealth(state: .degraded, problems: ["p"], lastCheckMilliseconds: nil, clockSynchronised: false))
        let object = try jsonObject(status)
        #expect(Set(object.keys) == ["version", "protocol", "instance", "uptime_s", "readers", "backends", "last_taps", "health"])
        #expect(object["uptime_s"] as? Double == 1.5)
        let health = try #require(object["health"] as? [String: Any])
        #expect(Set(health.keys) == ["state", "problems", "last_check_ms", "clock_synchronised"])
        #expect(health["state"] as? String == "degraded")
        #expect(health["last_check_ms"] is NSNull)
        // An answer from a daemon without the newer members still decodes.
        let old = try JSONDecoder().decode(
            StatusResult.self, from: Data(#"{"version":"1","protocol":1,"instance":"x","uptime_s":1,"readers":[]}"#.utf8))
        #expect(old.health == nil && old.backends.isEmpty && old.lastTaps.isEmpty)
    }

    @Test func eventsDroppedUsesSnakeCase() throws {
        let object = try jsonObject(
            JSONRPCNotification(method: .eventsDropped, params: EventsDroppedParams(count: 5, firstSeq: 10, lastSeq: 14)))
        #expect(object["method"] as? String == "events.dropped")
        #expect(object["id"] == nil)
        let params = try #require(object["params"] as? [String: Any])
        #expect(params["count"] as? Int == 5)
        #expect(params["first_seq"] as? Int == 10)
        #expect(params["last_seq"] as? Int == 14)
    }

    @Test func anEventNotificationCarriesTheEventAsParams() throws {
        let event = Event(
            seq: 12, time: Date(timeIntervalSince1970: 1_800_000_000.125), kind: .cardInserted,
            reader: .pcsc("R 00"), payload: .card(CardInfo(atr: "3B8F", uid: "04A1")))
        let notification = JSONRPCNotification(method: .event, params: event)
        let object = try jsonObject(notification)
        let params = try #require(object["params"] as? [String: Any])
        #expect(params["seq"] as? Int == 12)
        #expect(params["kind"] as? String == "card.inserted")
        #expect(params["reader"] as? String == "pcsc:R 00")
        #expect(params["time"] as? String == "2027-01-15T08:00:00.125Z")
        #expect(params["atr"] as? String == "3B8F")
        let decoded = try NDJSON.decode(JSONRPCNotification<Event>.self, from: try NDJSON.encodeLine(notification))
        #expect(decoded.params.seq == 12)
        #expect(decoded.params.payload == event.payload)
    }
}

@Suite(.timeLimit(.minutes(1))) struct MethodParamsTests {
    private func subscribeParams(_ json: String) throws -> EventsSubscribeParams {
        try JSONDecoder().decode(EventsSubscribeParams.self, from: Data(json.utf8))
    }

    @Test func subscribeParamsAreOptional() throws {
        #expect(try subscribeParams("{}") == EventsSubscribeParams())
        #expect(try subscribeParams(#"{"since":7,"kinds":["read.result"]}"#) == EventsSubscribeParams(since: 7, kinds: [.readResult]))
    }

    @Test(arguments: [#"{"sinse":1}"#, #"{"kinds":[]}"#, #"{"kinds":["card.exploded"]}"#, #"{"since":-1}"#])
    func badSubscribeParamsAreRejected(json: String) {
        #expect(throws: DecodingError.self) { try subscribeParams(json) }
    }

    @Test func transmitIsNotRawUnlessAsked() throws {
        let params = try JSONDecoder().decode(
            CardTransmitParams.self, from: Data(#"{"reader":"pcsc:R","apdu":"00b0000000"}"#.utf8))
        #expect(params.raw == false)
        #expect(params.apdu == "00b0000000")
        #expect(params.reader == ReaderID("pcsc:R"))
    }

    @Test func noParamsAcceptsAnEmptyObjectOnly() throws {
        #expect(try JSONDecoder().decode(NoParams.self, from: Data("{}".utf8)) == NoParams())
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(NoParams.self, from: Data(#"{"x":1}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(NoParams.self, from: Data("[]".utf8)) }
    }

    @Test func theMethodCatalogueHasTheWireNames() {
        #expect(RPCMethod.allCases.map(\.rawValue) == [
            "status", "readers.list", "events.subscribe", "card.transmit", "pass.read", "vas.read", "forward.status", "forward.retry", "forward.drop",
            "feedback.signal",
        ])
        #expect(RPCNotificationMethod.allCases.map(\.rawValue) == ["event", "events.dropped"])
    }
}

@Suite(.timeLimit(.minutes(1))) struct JSONRPCErrorCodeTests {
    static let table: [(JSONRPCErrorCode, Int, String)] = [
        (.parseError, -32700, "parse_error"),
        (.invalidRequest, -32600, "invalid_request"),
        (.methodNotFound, -32601, "method_not_found"),
        (.invalidParams, -32602, "invalid_params"),
        (.internalError, -32603, "internal_error"),
        (.noCard, -32001, "no_card"),
        (.unknownReader, -32002, "unknown_reader"),
        (.readerUnavailable, -32003, "reader_unavailable"),
        (.transportError, -32004, "transport_error"),
        (.transmitDisabled, -32005, "transmit_disabled"),
        (.tooManyClients, -32006, "too_many_clients"),
        (.lineTooLong, -32007, "line_too_long"),
        (.shuttingDown, -32008, "shutting_down"),
        (.alreadySubscribed, -32009, "already_subscribed"),
    ]

    @Test(arguments: table)
    func everyCodeHasItsNumberAndReason(code: JSONRPCErrorCode, number: Int, reason: String) {
        #expect(code.rawValue == number)
        #expect(code.reason == reason)
        #expect(JSONRPCError(code, "m").data?.reason == reason)
    }

    @Test func reasonsAreDistinct() {
        #expect(Set(Self.table.map(\.2)).count == Self.table.count)
    }
}

@Suite(.timeLimit(.minutes(1))) struct NDJSONTests {
    @Test func anEncodedValueIsExactlyOneLineEvenWithNewlinesInStrings() throws {
        let error = JSONRPCError(.internalError, "line one\nline two\r\n")
        let line = try NDJSON.encodeLine(JSONRPCResponse<NoParams>(id: .null, error: error))
        let bytes = Array(line.readableBytesView)
        #expect(bytes.last == UInt8(ascii: "\n"))
        #expect(bytes.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        let decoded = try NDJSON.decode(JSONRPCResponse<NoParams>.self, from: Data(bytes.dropLast()))
        #expect(decoded.outcome == .failure(error))
    }

    @Test func theLineLimitIs64KiB() {
        #expect(NDJSON.maximumLineBytes == 65_536)
    }

    @Test func slashesAreNotEscaped() throws {
        let line = try NDJSON.encodeLine(["path": "/run/passtap"])
        #expect(String(buffer: line) == #"{"path":"/run/passtap"}"# + "\n")
    }
}
