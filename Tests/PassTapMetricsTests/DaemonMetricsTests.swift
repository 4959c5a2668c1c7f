import MetricsSettings
import Foundation
import ISO7816
import PassTapCore
import PassTapForward
import PassTapProtocol
import PassTapMetrics
import PassTapVAS
import PassTapWeb
import Prometheus
import Testing
import VAS
import Wallets
import VASSettings

/// The recorder against a real swift-prometheus registry, read back through its text output.
@Suite(.timeLimit(.minutes(1))) struct DaemonMetricsTests {
    typealias Name = DaemonMetrics.Name
    let reader = ReaderID.pcsc("ACS ACR1252 00 00")
    let loyalty = "pass.com.example.loyalty"

    func metrics() -> DaemonMetrics {
        DaemonMetrics(registry: PrometheusCollectorRegistry(), version: "9.8.7")
    }

    func scrape(_ metrics: DaemonMetrics) throws -> PrometheusText {
        try PrometheusText(metrics.registry.emitToString())
    }

    func info(_ state: ReaderInfo.State) -> ReaderInfo {
        ReaderInfo(id: reader, name: "ACS ACR1252 00 00", backend: "pcsc", state: state)
    }

    func vasTap(_ entries: [VASEntry]) -> EventPayload {
        .readResult(
            ReadResult(
                card: CardInfo(atr: "3B8180018080", uid: "04A1B2C3D4E5F6"), target: .isoDep,
                session: SessionOutcome(
                    vas: VASSessionResult(
                        offered: true, wallet: "ApplePay", version: "0100", capabilities: nil, mode: .vasOrPayment, problem: nil,
                        entries: entries))))
    }

    /// A Google Smart Tap read is counted `pass`, a tag whose NDEF message was read `tag`.
    @Test func aSmartTapReadIsAPassAndATagIsATag() throws {
        let metrics = metrics()
        metrics.observe(.readerAdded, reader, .reader(info(.empty)))
        let card = CardInfo(atr: "3B8180018080", uid: "04A1B2C3D4E5F6")
        // As the wire carries it (this target does not depend on the SmartTap module).
        let smartTap = try JSONDecoder().decode(SmartTapSessionResult.self, from: Data(#"{"offered":true,"status":"success"}"#.utf8))
        metrics.observe(.readResult, reader, .readResult(ReadResult(card: card, target: .isoDep, session: SessionOutcome(smartTap: smartTap))))
        let ndef = NDEFReadResult(tagType: .type2, recordCount: 1, records: [])
        metrics.observe(.readResult, reader, .readResult(ReadResult(card: card, target: .memory, session: nil, ndef: ndef)))
        let text = try scrape(metrics)
        #expect(text.value(Name.taps, ["reader": reader.rawValue, "outcome": "pass"]) == 1)
        #expect(text.value(Name.taps, ["reader": reader.rawValue, "outcome": "tag"]) == 1)
        #expect(text.series(Name.taps).count == 2)
    }

    /// The core's recorder and the VAS slice's series (``VASMetrics``) on its factory, both seeing
    /// each event, as the daemon's hub shows them.
    struct Recorders {
        let core: DaemonMetrics
        let vas: VASMetrics
        var registry: PrometheusCollectorRegistry { core.registry }
        func observe(_ kind: EventKind, _ reader: ReaderID?, _ payload: EventPayload) {
            core.observe(kind, reader, payload)
            vas.observe(kind, reader, payload)
        }
    }

    func recorders() -> Recorders {
        let core = metrics()
        return Recorders(core: core, vas: VASMetrics(factory: core.factory, merchants: [loyalty]))
    }

    @Test func aTapIsCountedByReaderAndOutcomeAndEachVASStatusByMerchant() throws {
        let metrics = recorders()
        metrics.observe(.readerAdded, reader, .reader(info(.empty)))
        metrics.observe(
            .readResult, reader,
            vasTap([
                VASEntry(passTypeID: loyalty, status: .dataNotFound),
                VASEntry(passTypeID: "pass.com.attacker.chosen", status: .noMatchingKey),
            ]))
        metrics.observe(.readResult, reader, .readResult(ReadResult(card: CardInfo(atr: "3B", uid: "0411"), target: .memory, session: nil)))
        let text = try scrape(metrics.core)
        #expect(text.types[Name.taps] == "counter")
        #expect(text.value(Name.taps, ["reader": reader.rawValue, "outcome": "nothing"]) == 1)
        #expect(text.value(Name.taps, ["reader": reader.rawValue, "outcome": "memory_card"]) == 1)
        #expect(text.series(Name.taps).count == 2)
        #expect(text.value(VASMetrics.Name.vasReads, ["merchant": loyalty, "status": "data_not_found"]) == 1)
        // A pass type id that is not configured never becomes a label.
        #expect(text.value(VASMetrics.Name.vasReads, ["merchant": "other", "status": "no_matching_key"]) == 1)
        #expect(!text.samples.contains { $0.labels.values.contains("pass.com.attacker.chosen") })
        // Nor does a card's identity.
        let raw = metrics.registry.emitToString()
        #expect(!raw.contains("04A1B2C3D4E5F6") && !raw.contains("0411"))
    }

    /// A configuration with URL-only merchants of these pass type ids.
    static func configuration(merchants: [String]) throws -> Configuration {
        var configuration = Configuration()
        configuration.vas.enabled = true
        configuration.vas.merchants = try merchants.map {
            try VASMerchant(
                passTypeIdentifier: try PassTypeIdentifier($0), url: "https://example.com/join", filter: nil, keys: [], keyPaths: [])
        }
        return configuration
    }

    /// A reload's merchants label the reads that follow: one it adds is counted by name, one it
    /// removes as `other` (once, a merchant added by a reload stayed `other`).
    @Test func aReloadRelabelsTheMerchantsOfTheReadsThatFollow() async throws {
        let metrics = recorders()
        let coffee = "pass.com.example.coffee"
        let before = try Self.configuration(merchants: [loyalty])
        let after = try Self.configuration(merchants: [coffee])
        await metrics.vas.configurationChanged(from: before, to: after)
        metrics.observe(
            .readResult, reader, vasTap([VASEntry(passTypeID: coffee, status: .success), VASEntry(passTypeID: loyalty, status: .dataNotFound)]))
        let text = try scrape(metrics.core)
        #expect(text.value(VASMetrics.Name.vasReads, ["merchant": coffee, "status": "success"]) == 1)
        #expect(text.value(VASMetrics.Name.vasReads, ["merchant": "other", "status": "data_not_found"]) == 1)
        #expect(text.value(VASMetrics.Name.vasReads, ["merchant": loyalty, "status": "data_not_found"]) == nil)
    }

    @Test func readerStateFollowsItsEventsAndItsSeriesGoWithIt() throws {
        let metrics = metrics()
        metrics.observe(.readerAdded, reader, .reader(info(.empty)))
        var text = try scrape(metrics)
        #expect(text.value(Name.readerState, ["reader": reader.rawValue, "state": "empty"]) == 1)
        #expect(text.value(Name.readerState, ["reader": reader.rawValue, "state": "present"]) == 0)
        metrics.observe(.cardInserted, reader, .card(CardInfo(atr: "3B", uid: "04")))
        text = try scrape(metrics)
        #expect(text.value(Name.readerState, ["reader": reader.rawValue, "state": "present"]) == 1)
        #expect(text.value(Name.readerState, ["reader": reader.rawValue, "state": "empty"]) == 0)
        metrics.observe(.readResult, reader, .readResult(ReadResult(card: CardInfo(atr: "3B", uid: "04"), target: .memory, session: nil)))
        metrics.observe(.cardRemoved, reader, .cardRemoved)
        metrics.observe(.readerChanged, reader, .reader(ReaderInfo(id: reader, name: "x", backend: "pcsc", state: .unavailable, reason: "busy")))
        text = try scrape(metrics)
        #expect(text.value(Name.readerState, ["reader": reader.rawValue, "state": "unavailable"]) == 1)
        #expect(text.value(Name.taps, ["reader": reader.rawValue, "outcome": "memory_card"]) == 1)

        metrics.observe(.readerRemoved, reader, .reader(info(.empty)))
        text = try scrape(metrics)
        #expect(!text.samples.contains { $0.labels["reader"] == reader.rawValue })
        // Other series stay.
        #expect(text.value(Name.buildInfo, ["version": "9.8.7"]) == 1)
    }

    @Test func backendsClientsDropsAndReloadsAreCounted() throws {
        let metrics = metrics()
        metrics.observe(.backendDown, nil, .backend(name: "pcsc", reason: "no pcscd"))
        #expect(try scrape(metrics).value(Name.backendUp, ["backend": "pcsc"]) == 0)
        metrics.observe(.backendUp, nil, .backend(name: "pcsc", reason: nil))
        #expect(try scrape(metrics).value(Name.backendUp, ["backend": "pcsc"]) == 1)

        metrics.clientsChanged(by: 1)
        metrics.clientsChanged(by: 1)
        metrics.clientsChanged(by: -1)
        metrics.eventsDropped(12)
        metrics.eventsDropped(3)
        metrics.recordReload(outcome: "applied")
        metrics.recordReload(outcome: "rejected")
        metrics.recordReload(outcome: "applied")
        let text = try scrape(metrics)
        #expect(text.value(Name.clients) == 1)
        #expect(text.value(Name.eventsDropped) == 15)
        #expect(text.value(Name.reloads, ["outcome": "applied"]) == 2)
        #expect(text.value(Name.reloads, ["outcome": "rejected"]) == 1)
        #expect(text.types[Name.clients] == "gauge")
    }

    @Test func sessionDurationsAndRoundTripsFillTheirHistograms() throws {
        let metrics = metrics()
        let observer = metrics.sessionObserver
        observer.roundTrip(reader, .microseconds(800))
        observer.roundTrip(reader, .milliseconds(30))
        observer.sessionFinished(reader, .milliseconds(42))
        let text = try scrape(metrics)
        #expect(text.types[Name.apduRoundTrip] == "histogram")
        #expect(text.value(Name.apduRoundTrip + "_count") == 2)
        #expect(text.value(Name.apduRoundTrip + "_bucket", ["le": "0.001"]) == 1)
        #expect(text.value(Name.apduRoundTrip + "_bucket", ["le": "+Inf"]) == 2)
        #expect(text.value(Name.sessionDuration + "_count") == 1)
        #expect(text.value(Name.sessionDuration + "_bucket", ["le": "0.025"]) == 0)
        #expect(text.value(Name.sessionDuration + "_bucket", ["le": "0.05"]) == 1)
        let sum = try #require(text.value(Name.sessionDuration + "_sum"))
        #expect(abs(sum - 0.042) < 1e-9)
    }

    @Test func eachRecorderHasItsOwnRegistry() throws {
        let first = metrics()
        let second = metrics()
        first.eventsDropped(5)
        #expect(try scrape(first).value(Name.eventsDropped) == 5)
        #expect(try scrape(second).value(Name.eventsDropped) == 0)
    }

    @Test func everyEventTheHubPublishesIsCounted() throws {
        let metrics = metrics()
        let hub = EventHub(lineEncoder: EventNotificationEncoder(), observers: [metrics])
        hub.sink.publish(.backendUp, nil, .backend(name: "pcsc", reason: nil))
        #expect(hub.nextSeq == 2)
        #expect(try scrape(metrics).value(Name.backendUp, ["backend": "pcsc"]) == 1)
    }

    /// Forwarding's own series (``ForwardMetrics``, the forwarding slice's), made on the metrics
    /// slice's factory and scraped with the rest.
    @Test func theForwardersSeriesAreLabelledBySinkAndReason() throws {
        let scraped = DaemonMetrics(
            registry: PrometheusCollectorRegistry(), version: "9.8.7", histogramBuckets: ForwardMetrics.histogramBuckets)
        let metrics = ForwardMetrics(factory: scraped.factory)
        metrics.forwardBacklogs([
            ForwardBacklog(sink: "loyalty", pending: 3, oldestPendingAge: .milliseconds(1500)),
            ForwardBacklog(sink: "fleet", pending: 0, oldestPendingAge: .zero),
        ])
        metrics.forwardDelivered(sink: "loyalty", latencies: [.milliseconds(40), .seconds(20)])
        metrics.forwardRetried(sink: "loyalty")
        metrics.forwardRetried(sink: "loyalty")
        metrics.forwardDead(sink: "fleet")
        metrics.forwardDropped(reason: .outboxFull, count: 7)
        metrics.forwardDropped(reason: .sinkRemoved, count: 2)
        var text = try scrape(scraped)
        #expect(text.types[ForwardMetrics.Name.forwardPending] == "gauge" && text.types[ForwardMetrics.Name.forwardDelivered] == "counter")
        #expect(text.value(ForwardMetrics.Name.forwardPending, ["sink": "loyalty"]) == 3)
        #expect(text.value(ForwardMetrics.Name.forwardOldestPendingAge, ["sink": "loyalty"]) == 1.5)
        #expect(text.value(ForwardMetrics.Name.forwardPending, ["sink": "fleet"]) == 0)
        #expect(text.value(ForwardMetrics.Name.forwardDelivered, ["sink": "loyalty"]) == 2)
        #expect(text.value(ForwardMetrics.Name.forwardRetries, ["sink": "loyalty"]) == 2)
        #expect(text.value(ForwardMetrics.Name.forwardDead, ["sink": "fleet"]) == 1)
        #expect(text.value(ForwardMetrics.Name.forwardDropped, ["reason": "outbox_full"]) == 7)
        #expect(text.value(ForwardMetrics.Name.forwardDropped, ["reason": "sink_removed"]) == 2)
        #expect(text.types[ForwardMetrics.Name.forwardLatency] == "histogram")
        #expect(text.value(ForwardMetrics.Name.forwardLatency + "_bucket", ["sink": "loyalty", "le": "0.05"]) == 1)
        #expect(text.value(ForwardMetrics.Name.forwardLatency + "_bucket", ["sink": "loyalty", "le": "+Inf"]) == 2)
        #expect(abs((text.value(ForwardMetrics.Name.forwardLatency + "_sum", ["sink": "loyalty"]) ?? 0) - 20.04) < 1e-9)
        #expect(text.value(ForwardMetrics.Name.forwardLatency + "_count", ["sink": "loyalty"]) == 2)

        // A sink the outbox forgot loses its gauges; its counters stay.
        metrics.forwardBacklogs([ForwardBacklog(sink: "loyalty", pending: 0, oldestPendingAge: .zero)])
        text = try scrape(scraped)
        #expect(text.value(ForwardMetrics.Name.forwardPending, ["sink": "fleet"]) == nil)
        #expect(text.value(ForwardMetrics.Name.forwardOldestPendingAge, ["sink": "fleet"]) == nil)
        #expect(text.value(ForwardMetrics.Name.forwardPending, ["sink": "loyalty"]) == 0)
        #expect(text.value(ForwardMetrics.Name.forwardDead, ["sink": "fleet"]) == 1)
    }

    /// The web listener's own series (``WebMetrics``, the web slice's), made on the metrics
    /// slice's factory: the gauge starts at 0 and follows authenticated clients; failures count by
    /// reason.
    @Test func theWebListenersSeriesCountClientsAndFailures() throws {
        let scraped = metrics()
        let web = WebMetrics(factory: scraped.factory)
        #expect(try scrape(scraped).value(WebMetrics.Name.webClients) == 0)
        web.clientsChanged(by: 1)
        web.clientsChanged(by: 1)
        web.clientsChanged(by: -1)
        web.authFailed(reason: "auth_failed")
        web.authFailed(reason: "auth_failed")
        web.authFailed(reason: "auth_rate_limited")
        let text = try scrape(scraped)
        #expect(text.types[WebMetrics.Name.webClients] == "gauge" && text.types[WebMetrics.Name.webAuthFailures] == "counter")
        #expect(text.value(WebMetrics.Name.webClients) == 1)
        #expect(text.value(WebMetrics.Name.webAuthFailures, ["reason": "auth_failed"]) == 2)
        #expect(text.value(WebMetrics.Name.webAuthFailures, ["reason": "auth_rate_limited"]) == 1)
    }
}
