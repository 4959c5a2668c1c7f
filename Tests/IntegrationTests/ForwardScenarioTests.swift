import WebSettings
import ForwardSettings
import Foundation
import PassTapCore
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// Forwarding on real engines: the built passtapd on pcscd, vsmartcard-vpcd and the virtual
    /// iPhone, delivering to the real HTTPS receiver (`scripts/rig/webhook_receiver.py`, which
    /// checks every Standard Webhooks signature) and to a private PostgreSQL cluster
    /// (`scripts/rig/pg-cluster`), through the outbox in the rig's folder.
    @Suite(.serialized) struct ForwardScenarioTests {
        /// A `[[forward.webhooks]]` entry for `receiver` (`url`, `secret_file`, `ca_file` its own).
        static func webhook(_ name: String, _ receiver: WebhookReceiver, includeMessage: Bool = true, path: String = "hook") -> String {
            """
            [[forward.webhooks]]
            name = "\(name)"
            url = "\(receiver.url(path).absoluteString)"
            secret_file = "\(receiver.secretFile)"
            ca_file = "\(receiver.caFile)"
            kinds = ["read.result"]
            include_message = \(includeMessage)
            timeout_ms = 2000

            """
        }

        /// A `[[forward.postgres]]` entry for `cluster` over TCP with TLS checked (verify-full).
        static func postgres(_ name: String, _ cluster: PostgresCluster, table: String = "passtap_events", includeMessage: Bool = false) -> String {
            """
            [[forward.postgres]]
            name = "\(name)"
            host = "127.0.0.1"
            port = \(cluster.port)
            database = "\(cluster.database)"
            user = "\(cluster.user)"
            password_file = "\(cluster.passwordFile)"
            tls = "verify-full"
            ca_file = "\(cluster.caFile)"
            table = "\(table)"
            kinds = ["read.result"]
            include_message = \(includeMessage)

            """
        }

        /// `[forward]` with the outbox in the rig's folder, then `sinks`.
        static func forward(_ sinks: String..., settings: String = "") -> String {
            "[forward]\noutbox = \"outbox.sqlite\"\n\(settings)\n" + sinks.joined()
        }

        /// The daemon's `instance` (`status`), the first half of every forwarded id.
        static func instance(of rig: Rig) throws -> String {
            let status = try rig.call("status")
            return try #require(status["instance"] as? String)
        }

        /// The ids (`instance:seq`) of `results`.
        static func ids(_ results: [[String: Any]], instance: String) -> [String] {
            results.map { "\(instance):\($0["seq"] as? Int ?? -1)" }
        }

        /// `forward.status`'s entry for `sink`.
        static func sinkStatus(_ sink: String, of rig: Rig) throws -> [String: Any]? {
            let status = try rig.call("forward.status")
            return (status["sinks"] as? [[String: Any]])?.first { $0["name"] as? String == sink }
        }

        /// `status.health`'s problems about forwarding.
        static func forwardingProblems(of rig: Rig) throws -> [String] {
            let health = try #require(try rig.call("status")["health"] as? [String: Any])
            return ((health["problems"] as? [String]) ?? []).filter { $0.hasPrefix("forwarding") }
        }

        /// Waits until `table` holds `count` rows; returns their ids in the order they were written.
        @discardableResult
        static func waitForRows(_ count: Int, in cluster: PostgresCluster, table: String = "passtap_events", rig: Rig, timeout: Double = 60) throws -> [String] {
            var ids: [String] = []
            try rig.waitFor("\(count) rows in \(table)", timeout: timeout) {
                ids = ((try? cluster.rows("SELECT id FROM \(table) ORDER BY time, seq")) ?? []).compactMap { $0["id"] as? String }
                return ids.count >= count
            }
            return ids
        }

        /// Every `read.result` reaches both sinks once, in order: the receiver checked each
        /// signature (none refused), each row has its id, source, seq, instance, kind, reader and
        /// the event as jsonb; the webhook (include_message) carries the pass message.
        @Test func everyReadReachesBothSinksOnceWithItsIdAndAValidSignature() throws {
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            let cluster = try PostgresCluster()
            defer { cluster.remove() }
            let vas = try PhoneRig(
                config: PhoneRig.config(extra: Self.forward(Self.webhook("loyalty", receiver), Self.postgres("fleet", cluster), settings: "source = \"till-7\"")))
            defer { vas.stop() }
            let instance = try Self.instance(of: vas.rig)
            let results = try (0..<4).map { _ in try vas.tap() }
            let ids = Self.ids(results, instance: instance)

            let events = try receiver.waitForEvents(4)
            #expect(events.map(\.id) == ids)
            #expect(try receiver.attempts().allSatisfy(\.valid))
            for (event, result) in zip(events, results) {
                let body = try #require(try JSONSerialization.jsonObject(with: Data(event.body.utf8)) as? [String: Any])
                #expect(body["id"] as? String == event.id && body["source"] as? String == "till-7" && body["type"] as? String == "read.result")
                let data = try #require(body["data"] as? [String: Any])
                #expect(data["seq"] as? Int == result["seq"] as? Int)
                #expect(event.body.contains(PhoneRig.message), "include_message = true: the webhook gets the pass message")
            }

            #expect(try Self.waitForRows(4, in: cluster, rig: vas.rig) == ids)
            let rows = try cluster.rows("SELECT id, source, seq, instance, kind, reader, event->>'kind' AS event_kind, (event->>'seq')::int AS event_seq FROM passtap_events ORDER BY seq")
            for (row, result) in zip(rows, results) {
                #expect(row["source"] as? String == "till-7" && row["instance"] as? String == instance)
                #expect(row["kind"] as? String == "read.result" && row["event_kind"] as? String == "read.result")
                #expect(row["seq"] as? Int == result["seq"] as? Int && row["event_seq"] as? Int == result["seq"] as? Int)
                #expect(row["reader"] as? String == result["reader"] as? String)
            }
            let status = try #require(try Self.sinkStatus("fleet", of: vas.rig))
            #expect(status["pending"] as? Int == 0 && status["dead"] as? Int == 0)
            #expect(vas.ledger.problems.isEmpty, "\(vas.ledger.problems)")
        }

        /// The receiver is down for 20 taps, then back: all 20 arrive, in order, with no operator
        /// step (the sink's backoff brings them), and `forward.status` counted them pending.
        @Test func aReceiverDownForTwentyTapsGetsAllTwentyInOrderOnceBack() throws {
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            let vas = try PhoneRig(config: PhoneRig.config(extra: Self.forward(Self.webhook("loyalty", receiver))))
            defer { vas.stop() }
            let instance = try Self.instance(of: vas.rig)
            try receiver.down()
            let results = try (0..<20).map { _ in try vas.tap() }
            try vas.rig.waitFor("forward.status to count 20 pending") {
                (try? Self.sinkStatus("loyalty", of: vas.rig))??["pending"] as? Int == 20
            }
            let status = try #require(try Self.sinkStatus("loyalty", of: vas.rig))
            #expect(status["last_error"] as? String != nil, "\(status)")
            // The broken sink degrades the daemon: its name and class, never the receiver's address.
            let problems = try Self.forwardingProblems(of: vas.rig)
            let down = ["connection_refused", "connection_closed"].map { "forwarding to sink loyalty fails: \($0) (passtap forward status tells more)" }
            #expect(problems.count == 1 && down.contains(problems[0]), "\(problems)")
            try receiver.up()
            // Backoff doubles from 1 s (capped at 5 min): after about 30 s down, the next try is
            // at most about 32 s away.
            let events = try receiver.waitForEvents(20, timeout: 90)
            #expect(events.map(\.id) == Self.ids(results, instance: instance))
            // Delivered: the sink recovered, and so did the health.
            try vas.rig.waitFor("the forwarding problem to clear") { (try? Self.forwardingProblems(of: vas.rig))?.isEmpty == true }
        }

        /// PostgreSQL restarts between taps: no row is missing, and none is there twice.
        @Test func postgresRestartingDuringTapsLosesNoRow() throws {
            let cluster = try PostgresCluster()
            defer { cluster.remove() }
            let vas = try PhoneRig(config: PhoneRig.config(extra: Self.forward(Self.postgres("fleet", cluster))))
            defer { vas.stop() }
            let instance = try Self.instance(of: vas.rig)
            var results = try (0..<3).map { _ in try vas.tap() }
            try Self.waitForRows(3, in: cluster, rig: vas.rig)
            try cluster.stop()
            results += try (0..<3).map { _ in try vas.tap() }
            try cluster.start()
            results += try (0..<3).map { _ in try vas.tap() }
            let ids = try Self.waitForRows(9, in: cluster, rig: vas.rig, timeout: 90)
            #expect(Set(ids) == Set(Self.ids(results, instance: instance)) && ids.count == 9)
        }

        /// SIGKILL while a delivery is in flight, then a restart: every event is delivered, those
        /// sent again keep their id (one row each in PostgreSQL), and the new instance's events
        /// follow.
        @Test func sigkillDuringDeliveryThenARestartLosesNothingAndKeepsIds() throws {
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            let cluster = try PostgresCluster()
            defer { cluster.remove() }
            let config = PhoneRig.config(extra: Self.forward(Self.webhook("loyalty", receiver), Self.postgres("fleet", cluster)))
            let vas = try PhoneRig(config: config)
            defer { vas.stop() }
            let instance = try Self.instance(of: vas.rig)
            // Each answer waits 1.5 s (under timeout_ms): the kill lands while a request is open.
            try receiver.delay(milliseconds: 1500)
            let before = try (0..<3).map { _ in try vas.tap() }
            try vas.rig.waitFor("a webhook request in flight") { ((try? receiver.stats()["attempts"] as? Int) ?? 0) >= 1 }
            kill(vas.rig.daemonPID, SIGKILL)
            try vas.rig.waitFor("passtapd to die") { !Rig.isAlive(vas.rig.daemonPID) }
            try receiver.reset()
            try vas.rig.startDaemon(config: config)
            let ledger = try EventLedger(rig: vas.rig)
            let restarted = try Self.instance(of: vas.rig)
            #expect(restarted != instance)
            try vas.rig.cardCommand("tap-for 1200")
            let after = try ledger.next("read.result")
            let expected = Self.ids(before, instance: instance) + Self.ids([after], instance: restarted)

            try vas.rig.waitFor("every event at the receiver", timeout: 60) {
                Set(((try? receiver.events()) ?? []).map(\.id)).isSuperset(of: expected)
            }
            let events = try receiver.events()
            // At least once: an event sent again has the same id and the same body.
            for id in Set(events.map(\.id)) {
                #expect(Set(events.filter { $0.id == id }.map(\.body)).count == 1, "\(id) changed between deliveries")
            }
            #expect(events.map(\.id).filter { expected.contains($0) }.uniqued() == expected, "outbox order")
            let ids = try Self.waitForRows(4, in: cluster, rig: vas.rig)
            #expect(ids.sorted() == expected.sorted())
            #expect(try cluster.psql("SELECT count(*) - count(DISTINCT id) FROM passtap_events") == "0")
        }

        /// A 400 puts the event on the dead list, the next event still goes, and `passtap forward
        /// retry` (the real CLI, role manage as root) sends the dead one again.
        @Test func a400PutsTheEventOnTheDeadListAndForwardRetrySendsItAgain() throws {
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            let vas = try PhoneRig(config: PhoneRig.config(extra: Self.forward(Self.webhook("loyalty", receiver))))
            defer { vas.stop() }
            let instance = try Self.instance(of: vas.rig)
            try receiver.refuse(nil)
            let refused = try vas.tap()
            try vas.rig.waitFor("the event on the dead list") { (try? Self.sinkStatus("loyalty", of: vas.rig))??["dead"] as? Int == 1 }
            try receiver.reset()
            let next = try vas.tap()
            #expect(try receiver.waitForEvents(1).map(\.id) == Self.ids([next], instance: instance))

            let cli = try Spawned.finish(
                Rig.binaries.appendingPathComponent("passtap").path, ["forward", "retry", "loyalty", "--socket", vas.rig.socketPath], deadline: 20)
            #expect(cli.status == 0, "\(cli.output)")
            #expect(cli.output.contains("1"), "\(cli.output)")
            let events = try receiver.waitForEvents(2)
            #expect(events.map(\.id) == Self.ids([next, refused], instance: instance))
            try vas.rig.waitFor("the dead list empty") { (try? Self.sinkStatus("loyalty", of: vas.rig))??["dead"] as? Int == 0 }
        }

        /// A full outbox (seeded to its bound while the sink is down) drops its oldest events,
        /// announces `forward.dropped` with their range, and the taps go on.
        @Test func aFullOutboxDropsTheOldestAnnouncesThemAndTapsGoOn() throws {
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            try receiver.down()
            let config = PhoneRig.config(extra: Self.forward(Self.webhook("loyalty", receiver), settings: "max_pending_bytes = 1048576"))
            let vas = try PhoneRig(config: config)
            defer { vas.stop() }
            // Seed over 1 MiB of pending events for the sink, with passtapd stopped, then start it again.
            vas.rig.stopDaemon()
            let outbox = vas.rig.directory.appendingPathComponent("outbox.sqlite").path
            let seeded = try Rig.run(
                "/usr/bin/python3",
                [Rig.repository.appendingPathComponent("scripts/bench/outbox_seed.py").path, outbox, "--sink", "loyalty", "--type", "webhook",
                 "--count", "2700", "--instance", "seeded"])
            // About 395 bytes each: over the 1 MiB bound once the first tap is committed.
            #expect(seeded.contains("\"count\": 2700"), "\(seeded)")
            try vas.rig.startDaemon(config: config)
            let ledger = try EventLedger(rig: vas.rig)
            try ledger.next("reader.added")
            let mark = ledger.mark()
            for _ in 0..<3 {
                try vas.rig.cardCommand("tap-for 1200")
                try ledger.next("read.result")
                try ledger.next("card.removed")
            }
            // The ledger keeps every event it read on the way to the taps' own.
            let announced = ledger.since(mark).first { $0["kind"] as? String == "forward.dropped" }
            let dropped = try announced ?? ledger.next("forward.dropped")
            #expect(dropped["reason"] as? String == "outbox_full" && dropped["sink"] is NSNull)
            #expect((dropped["count"] as? Int ?? 0) >= 1)
            #expect(dropped["first_id"] as? String == "seeded:1", "the oldest go first: \(dropped)")
            let status = try vas.rig.call("forward.status")
            #expect((status["pending_bytes"] as? Int ?? .max) <= 1_048_576, "\(status)")
            #expect((status["dropped"] as? Int ?? 0) >= 1)
        }

        /// `include_message = false` everywhere: the pass message reaches neither sink (body,
        /// headers, rows) and is not in the outbox's files either; the same tap forwarded with
        /// `include_message = true` carries it (so the search can find it).
        @Test func withoutIncludeMessageThePassMessageIsNowhereNotEvenInTheOutbox() throws {
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            let cluster = try PostgresCluster()
            defer { cluster.remove() }
            let withheld = Self.forward(Self.webhook("loyalty", receiver, includeMessage: false), Self.postgres("fleet", cluster))
            let vas = try PhoneRig(config: PhoneRig.config(extra: withheld))
            defer { vas.stop() }
            let result = try vas.tap()
            #expect(PhoneRig.entry(in: result)?["message"] as? String == PhoneRig.message || "\(result)".contains(PhoneRig.message),
                    "the socket's read role still sees the message")
            try receiver.waitForEvents(1)
            try Self.waitForRows(1, in: cluster, rig: vas.rig)
            let attempts = try receiver.attempts()
            #expect(!attempts.isEmpty)
            for attempt in attempts {
                #expect(!attempt.body.contains(PhoneRig.message) && !attempt.headers.values.contains { $0.contains(PhoneRig.message) })
            }
            #expect(try !cluster.psql("SELECT event::text FROM passtap_events").contains(PhoneRig.message))
            vas.rig.stopDaemon()
            for suffix in ["", "-wal", "-shm"] {
                let file = vas.rig.directory.appendingPathComponent("outbox.sqlite" + suffix)
                guard let bytes = try? Data(contentsOf: file) else { continue }
                #expect(bytes.range(of: Data(PhoneRig.message.utf8)) == nil, "the message is in \(file.lastPathComponent)")
            }
        }

        /// A reload adds a sink (it gets the events from the next one on) and removes one (its
        /// rows stay, it is listed as removed); the sink kept throughout loses nothing.
        @Test func aReloadAddsASinkFromTheNextEventAndRemovesOneWithoutLossElsewhere() throws {
            let kept = try WebhookReceiver()
            defer { kept.stop() }
            let added = try WebhookReceiver()
            defer { added.stop() }
            let cluster = try PostgresCluster()
            defer { cluster.remove() }
            let vas = try PhoneRig(config: PhoneRig.config(extra: Self.forward(Self.webhook("kept", kept), Self.postgres("fleet", cluster))))
            defer { vas.stop() }
            let instance = try Self.instance(of: vas.rig)
            var results = try (0..<2).map { _ in try vas.tap() }
            try Self.waitForRows(2, in: cluster, rig: vas.rig)
            try vas.rig.reload(config: PhoneRig.config(extra: Self.forward(Self.webhook("kept", kept), Self.webhook("added", added))))
            let reloaded = try vas.ledger.next("config.reloaded")
            #expect((reloaded["changed"] as? [String] ?? []).contains { $0.hasPrefix("forward") }, "\(reloaded)")
            let later = try (0..<2).map { _ in try vas.tap() }
            results += later

            #expect(try kept.waitForEvents(4).map(\.id) == Self.ids(results, instance: instance))
            #expect(try added.waitForEvents(2).map(\.id) == Self.ids(later, instance: instance))
            #expect(try cluster.psql("SELECT count(*) FROM passtap_events") == "2")
            let removed = try #require(try Self.sinkStatus("fleet", of: vas.rig))
            #expect(removed["state"] as? String == "removed" && removed["pending"] as? Int == 0, "\(removed)")
        }
    }
}

extension Rig {
    /// Calls `method` on passtapd's socket (as root: every role) and returns its `result`;
    /// throws with the error when it answers one.
    func call(_ method: String, _ params: [String: Any]? = nil) throws -> [String: Any] {
        let client = try LineClient(path: socketPath)
        var request: [String: Any] = ["jsonrpc": "2.0", "id": 1, "method": method]
        if let params { request["params"] = params }
        try client.sendLine(String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self))
        let answer = try client.readJSON(what: "the \(method) answer") { $0["id"] as? Int == 1 }
        guard let result = answer["result"] as? [String: Any] else { throw Failure(description: "\(method) failed: \(answer)") }
        return result
    }
}

extension Array where Element: Hashable {
    /// The elements in order, each at its first place only.
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
