import WebSettings
import ForwardSettings
import Foundation
import ISO7816
import Logging
import NIOCore
import PassTapCore
import PassTapForward
import PassTapProtocol
import PassTapTestSupport
import Synchronization
import SmartTap
import Testing
import VAS
import Wallets

/// `WebhookSink` alone against the real HTTPS receiver (`scripts/rig/webhook_receiver.py`, which
/// checks every signature with its own Python HMAC and refuses bad ones with 401): no pcscd, no
/// passtapd. Attempt times come from an injected clock, so a retry's new timestamp and a
/// `Retry-After` date are exact.
@Suite(.serialized, .timeLimit(.minutes(3))) struct WebhookSinkTests {
    static func sink(_ receiver: WebhookReceiver, clock: TestClock, caFile: String?? = .none, timeoutMilliseconds: Int = 10_000) -> WebhookSink {
        let configuration = Configuration.ForwardWebhook(
            name: "test", url: receiver.url(), secretFile: receiver.secretFile, secret: receiver.secret,
            caFile: caFile ?? receiver.caFile, timeoutMilliseconds: timeoutMilliseconds)
        return WebhookSink(configuration: configuration, logger: Logger(label: "webhook-test"), clock: clock.daemonClock)
    }

    static func item(seq: UInt64 = 1, event: ByteBuffer = ByteBuffer(string: #"{"kind":"read.result","seq":1}"#)) -> OutboxItem {
        OutboxItem(
            rowID: Int64(seq), instance: "6F1C2A", seq: seq, source: "till-3", kind: .readResult, reader: "pcsc:Virtual PCD 00 00",
            time: Date(timeIntervalSince1970: 1_800_000_000), event: event)
    }

    /// What an error may never show: the secret (as text or base64) and any signature.
    static func expectNoSecret(_ outcome: DeliveryOutcome, _ receiver: WebhookReceiver) throws {
        let text: String
        switch outcome {
        case .delivered: return
        case .retry(_, _, let error), .dead(_, let error): text = error.text
        }
        #expect(!text.contains(receiver.secret.text) && !text.contains(Data(receiver.secret.key).base64EncodedString()))
        #expect(!text.contains("v1,"))
        for attempt in try receiver.attempts() { #expect(!text.contains(attempt.headers["webhook-signature"] ?? "\u{0}")) }
    }

    @Test func anEventIsDeliveredSignedUnderItsIDWithTheEnvelopeAsBody() async throws {
        let receiver = try WebhookReceiver()
        let clock = TestClock()  // real time to start with: the receiver refuses timestamps 300 s away
        let sink = Self.sink(receiver, clock: clock)
        let item = Self.item()
        #expect(sink.batchLimit == 1)
        #expect(await sink.deliver([item]) == .delivered)
        await sink.shutdown()
        let events = try receiver.waitForEvents(1)
        let envelope = ForwardEnvelope.body(for: item)
        #expect(events.map(\.id) == ["6F1C2A:1"])
        #expect(events[0].body == envelope.getString(at: envelope.readerIndex, length: envelope.readableBytes))
        #expect(events[0].timestamp == String(Int64(clock.date.timeIntervalSince1970)))
        let attempt = try #require(try receiver.attempts().first)
        #expect(attempt.valid && attempt.status == 200)
        #expect(attempt.headers["content-type"] == "application/json")
        #expect(attempt.headers["user-agent"] == "passtapd/\(PassTapVersion.string)")
        #expect(try receiver.stats()["bad_signatures"] as? Int == 0)
    }

    @Test func aRetryIsSignedAgainWithTheAttemptsNewTimestamp() async throws {
        let receiver = try WebhookReceiver()
        let clock = TestClock()
        let sink = Self.sink(receiver, clock: clock)
        try receiver.answer(500)
        let first = await sink.deliver([Self.item()])
        #expect(first == .retry(delivered: 0, after: nil, error: ForwardFailure(.httpStatus, "the receiver answered 500 Internal Server Error")))
        clock.advance(by: .seconds(37))
        try receiver.reset()
        #expect(await sink.deliver([Self.item()]) == .delivered)
        await sink.shutdown()
        let attempts = try receiver.attempts()
        #expect(attempts.map(\.status) == [500, 200])
        #expect(attempts.allSatisfy { $0.valid && $0.id == "6F1C2A:1" })
        let stamps = attempts.compactMap { $0.timestamp.flatMap(Int64.init) }
        #expect(stamps.count == 2 && stamps[1] - stamps[0] == 37)
        #expect(attempts[0].headers["webhook-signature"] != attempts[1].headers["webhook-signature"])
        #expect(try receiver.events().count == 1)
        try Self.expectNoSecret(first, receiver)
    }

    @Test func tooManyRequestsIsRetriedAfterRetryAfterInSecondsOrAsADate() async throws {
        let receiver = try WebhookReceiver()
        // On a whole second, so an HTTP-date (whole seconds) names the clock's time exactly.
        let clock = TestClock(date: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        let sink = Self.sink(receiver, clock: clock)
        try receiver.answer(429, retryAfter: "120")
        let seconds = await sink.deliver([Self.item()])
        #expect(seconds == .retry(delivered: 0, after: .seconds(120), error: ForwardFailure(.httpStatus, "the receiver answered 429 Too Many Requests (Retry-After: 120 s)")))
        // An HTTP-date counts from the injected clock, not the machine's.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let whole = clock.date
        try receiver.answer(503, retryAfter: formatter.string(from: whole.addingTimeInterval(90)))
        guard case .retry(0, let after, _) = await sink.deliver([Self.item()]) else {
            Issue.record("503 was not retried")
            return
        }
        #expect(after == .seconds(90))
        await sink.shutdown()
        try Self.expectNoSecret(seconds, receiver)
    }

    @Test func aBadRequestAnswerIsDeadAndTheNextEventStillGoes() async throws {
        let receiver = try WebhookReceiver()
        let sink = Self.sink(receiver, clock: TestClock())
        try receiver.refuse("6F1C2A:1")
        let refused = await sink.deliver([Self.item(seq: 1)])
        #expect(refused == .dead(delivered: 0, error: ForwardFailure(.httpStatus, "the receiver answered 400 Bad Request: refused for good")))
        #expect(await sink.deliver([Self.item(seq: 2)]) == .delivered)
        await sink.shutdown()
        #expect(try receiver.events().map(\.id) == ["6F1C2A:2"])
    }

    @Test func aReceiverThatIsDownIsRetriedAndReachedOnceUp() async throws {
        let receiver = try WebhookReceiver()
        // async-http-client tries to connect again until the request's time is up, then reports
        // the last failure: a short timeout keeps the test short.
        let sink = Self.sink(receiver, clock: TestClock(), timeoutMilliseconds: 1500)
        #expect(await sink.deliver([Self.item(seq: 1)]) == .delivered)
        try receiver.down()
        let down = await sink.deliver([Self.item(seq: 2)])
        guard case .retry(0, nil, let error) = down else {
            Issue.record("down gave \(down)")
            return
        }
        // One sentence with the address, never NIO's own text ("connection reset (error set): ...").
        let refused = "connection refused by 127.0.0.1:\(receiver.port): nothing listens there"
        let closed = "127.0.0.1:\(receiver.port) closed the connection without answering"
        #expect([refused, closed].contains(error.text), "\(error)")
        // Refused when the client connects anew; closed when async-http-client first tries the
        // keep-alive connection the receiver just dropped and reports that. Which comes last is a
        // race (seen both ways in fresh clones); both are the connection classes an observe peer
        // gets, never the text.
        #expect([.connectionRefused, .connectionClosed].contains(error.reason), "\(error)")
        try receiver.up()
        #expect(await sink.deliver([Self.item(seq: 2)]) == .delivered)
        await sink.shutdown()
        #expect(try receiver.events().map(\.id) == ["6F1C2A:1", "6F1C2A:2"])
        try Self.expectNoSecret(down, receiver)
    }

    @Test func anUntrustedCertificateWithoutCAFileIsRetriedWithATLSError() async throws {
        let receiver = try WebhookReceiver()
        let sink = Self.sink(receiver, clock: TestClock(), caFile: .some(nil), timeoutMilliseconds: 1500)
        let outcome = await sink.deliver([Self.item()])
        await sink.shutdown()
        guard case .retry(0, nil, let error) = outcome else {
            Issue.record("an untrusted certificate gave \(outcome)")
            return
        }
        #expect(error.reason == .tls, "\(error)")
        #expect(
            error.text
                == "TLS handshake with 127.0.0.1:\(receiver.port) failed (CERTIFICATE_VERIFY_FAILED): the server's certificate is not signed by a CA in the system's store or ca_file",
            "\(error)")
        #expect(try receiver.events().isEmpty)
        try Self.expectNoSecret(outcome, receiver)
    }

    @Test func aSlowReceiverIsRetriedAfterTimeout() async throws {
        let receiver = try WebhookReceiver()
        // The receiver waits 10 times the sink's timeout before answering.
        try receiver.delay(milliseconds: 3000)
        let sink = Self.sink(receiver, clock: TestClock(), timeoutMilliseconds: 300)
        let outcome = await sink.deliver([Self.item()])
        await sink.shutdown()
        #expect(outcome == .retry(delivered: 0, after: nil, error: ForwardFailure(.timeout, "no answer from 127.0.0.1:\(receiver.port) within timeout_ms (300 ms)")))
    }

    /// The sink sends what it is given: an event in the withheld view (what a sink with
    /// `include_message = false` gets from the outbox) reaches the receiver without the message,
    /// nor the Smart Tap customer id and objects (its `smarttap` is there, withheld).
    @Test func aWithheldEventReachesTheReceiverWithoutItsMessage() async throws {
        let hub = EventHub(lineEncoder: EventNotificationEncoder(), capacity: 4)
        let subscription = try hub.subscribe(since: nil, queueLimit: 4, view: .passesWithheld)
        var coffee = VASEntry(passTypeID: "pass.com.example.coffee", status: .success, sw: "9000", keyID: VASKeyID(bytes: [1, 2, 3, 4]))
        coffee.publish(VASPayload(timestampRaw: 817_038_360, message: Array("member 0042".utf8)), variant: .a)
        let vas = VASSessionResult(
            offered: true, wallet: "ApplePay", version: "0100", capabilities: nil, mode: .vasOrPayment, problem: nil, entries: [coffee])
        let smartTap = SmartTapSessionResult(
            offered: true, version: "0001", status: .success, sw: "9000", customerID: "CUSTOMER-77", tapID: "TAP-88",
            objects: [SmartTapPublishedObject(type: "loyalty", issuerID: "3388", objectID: "3388.m", value: "card 0099")])
        let result = ReadResult(
            card: CardInfo(atr: "3B80800101", uid: "04A1B2C3D4E5F6"), target: .isoDep, session: SessionOutcome(vas: vas, smartTap: smartTap))
        _ = hub.publish(.readResult, reader: .pcsc("Virtual PCD 00 00"), payload: .readResult(result))
        let polled = subscription.poll(orNotify: { _ in })
        guard case .event(let published) = polled else {
            Issue.record("no event")
            return
        }
        let full = published.eventJSON(for: .full)
        #expect(full.getString(at: full.readerIndex, length: full.readableBytes)?.contains("member 0042") == true)
        #expect(full.getString(at: full.readerIndex, length: full.readableBytes)?.contains(#""customer_id":"CUSTOMER-77""#) == true)

        let receiver = try WebhookReceiver()
        let sink = Self.sink(receiver, clock: TestClock())
        let item = Self.item(event: published.eventJSON(for: .passesWithheld))
        #expect(await sink.deliver([item]) == .delivered)
        await sink.shutdown()
        let attempt = try #require(try receiver.attempts().first)
        let envelope = ForwardEnvelope.body(for: item)
        #expect(attempt.body == envelope.getString(at: envelope.readerIndex, length: envelope.readableBytes))
        #expect(attempt.body.contains(#""withheld":"access""#))
        let everything = attempt.body + attempt.headers.map { $0.key + ": " + $0.value }.joined(separator: "\n")
        #expect(!everything.contains("member 0042"))
        #expect(attempt.body.contains(#""smarttap":{"code":null,"collector_id":null,"customer_id":null,"objects":null,"offered":true,"problem":null,"status":"success","sw":"9000","tap_id":null,"version":"0001","withheld":"access"}"#))
        for secret in ["CUSTOMER-77", "TAP-88", "card 0099"] { #expect(!everything.contains(secret)) }
        #expect(!everything.contains(Data("member 0042".utf8).base64EncodedString()))
    }
}
