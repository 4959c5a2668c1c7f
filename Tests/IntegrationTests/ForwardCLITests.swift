import ForwardSettings
import WebSettings
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// `passtap forward status|retry|drop` against a stand-in daemon (`socat` with canned answers):
/// the table, `--json`, what retry and drop print, and the exit code of an unknown sink. The real
/// daemon's side of the methods is in `PassTapServerTests.ForwardMethodTests`.
@Suite struct ForwardCLITests {
    typealias StandIn = HostileTextTests.StandInDaemon

    static var status: [String: Any] {
        [
            "enabled": true, "source": "till-3", "pending_bytes": 5120, "max_pending_bytes": 67_108_864, "dropped": 12,
            "sinks": [
                [
                    "name": "loyalty", "type": "webhook", "state": "active", "pending": 3, "oldest_pending_age_ms": 1500, "dead": 2,
                    "delivered": 40, "last_error": "HTTP 503 \u{1B}[2J from loyalty.example.com", "last_error_reason": "http_status",
                    "retry_in_ms": 800, "drop_at": NSNull(),
                ],
                [
                    "name": "old-fleet", "type": "postgres", "state": "removed", "pending": 120, "oldest_pending_age_ms": 3_725_000,
                    "dead": 0, "delivered": 9000, "last_error": NSNull(), "retry_in_ms": NSNull(), "drop_at": "2026-11-23T11:06:00.000Z",
                ],
                // As a user without manage sees a failing sink: the class, not the text.
                [
                    "name": "fleet", "type": "postgres", "state": "active", "pending": 7, "oldest_pending_age_ms": 2000, "dead": 0,
                    "delivered": 5, "last_error": NSNull(), "last_error_reason": "auth", "retry_in_ms": 4000, "drop_at": NSNull(),
                ],
            ]
        ]
    }

    @Test func statusPrintsOneEscapedRowPerSink() throws {
        let daemon = try StandIn([HostileTextTests.response(1, Self.status)])
        defer { daemon.stop() }
        let (status, output) = try HostileTextTests.passtap(["forward", "status"], against: daemon)
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.first == "forwarding as till-3: 2 of 3 sinks failing; 5.0 KiB pending of 64.0 MiB, 12 dropped since start", "\(output)")
        #expect(lines.count == 5, "\(output)")
        #expect(lines[1].hasPrefix("NAME       TYPE      STATE"), "\(output)")
        let loyalty = lines[2].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        #expect(Array(loyalty.prefix(8)) == ["loyalty", "webhook", "failing", "3", "1.5s", "2", "40", "0.8s"], "\(output)")
        #expect(lines[2].hasSuffix("http_status: HTTP 503 \\u{1B}[2J from loyalty.example.com"), "\(output)")
        #expect(HostileTextTests.obeyedLines(output).isEmpty)
        let fleet = lines[3].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        #expect(
            fleet == ["old-fleet", "postgres", "removed", "(drop", "at", "2026-11-23T11:06:00.000Z)", "120", "1h02m05s", "0", "9000", "-", "-"],
            "\(output)")
        #expect(lines[4].hasSuffix(" auth (the error's text needs the manage role)"), "\(output)")
    }

    @Test func statusJSONIsTheAnswerAndAnOffForwarderSaysHowToTurnItOn() throws {
        let daemon = try StandIn([HostileTextTests.response(1, Self.status)])
        defer { daemon.stop() }
        let (status, output) = try HostileTextTests.passtap(["forward", "status", "--json"], against: daemon)
        #expect(status == 0, "\(output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        #expect(object["source"] as? String == "till-3" && (object["sinks"] as? [Any])?.count == 3, "\(output)")

        let off = try StandIn([
            HostileTextTests.response(1, ["enabled": false, "source": "till-3", "pending_bytes": 0, "max_pending_bytes": 67_108_864, "dropped": 0, "sinks": []])
        ])
        defer { off.stop() }
        let shown = try HostileTextTests.passtap(["forward", "status"], against: off)
        #expect(shown.status == 0, "\(shown.output)")
        #expect(shown.output.hasPrefix("forwarding is off: no [[forward.webhooks]] or [[forward.postgres]] in passtapd.toml"), "\(shown.output)")
    }

    /// Sinks configured, the outbox not open: never "forwarding is off". A `manage` user gets
    /// the outbox's error (what to do included); anyone else the class, and where to learn more.
    @Test func aStoppedForwarderSaysSoWithTheOutboxsErrorForManageAndTheClassOtherwise() throws {
        let text = "cannot open the outbox /var/lib/passtap/outbox.sqlite: the outbox's folder /var/lib/passtap does not exist: create it"
        func answer(withText: Bool) -> [String: Any] {
            [
                "enabled": false, "source": "till-3", "pending_bytes": 0, "max_pending_bytes": 67_108_864, "dropped": 0,
                "sinks": [
                    [
                        "name": "loyalty", "type": "webhook", "state": "active", "pending": 0, "oldest_pending_age_ms": NSNull(), "dead": 0,
                        "delivered": 0, "last_error": withText ? text as Any : NSNull(), "last_error_reason": "outbox_unavailable",
                        "retry_in_ms": NSNull(), "drop_at": NSNull(),
                    ]
                ],
            ]
        }
        let manage = try StandIn([HostileTextTests.response(1, answer(withText: true))])
        defer { manage.stop() }
        let shown = try HostileTextTests.passtap(["forward", "status"], against: manage)
        #expect(shown.status == 0, "\(shown.output)")
        let lines = shown.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "forwarding is stopped: 1 sink configured, but the outbox cannot be opened, so no event is kept or sent", "\(shown.output)")
        #expect(lines.dropFirst().first == "the outbox: \(text)", "\(shown.output)")
        #expect(lines.last?.split(separator: " ", omittingEmptySubsequences: true).prefix(3) == ["loyalty", "webhook", "stopped"], "\(shown.output)")
        #expect(!shown.output.contains("forwarding is off"), "\(shown.output)")

        let observe = try StandIn([HostileTextTests.response(1, answer(withText: false))])
        defer { observe.stop() }
        let classOnly = try HostileTextTests.passtap(["forward", "status"], against: observe)
        let observed = classOnly.output.split(separator: "\n").map(String.init)
        #expect(
            observed.dropFirst().first
                == "the outbox: outbox_unavailable (why, and what to do, needs the manage role: ask an admin, or see passtapd's log)",
            "\(classOnly.output)")
        #expect(observed.last?.hasSuffix(" outbox_unavailable (the error's text needs the manage role)") == true, "\(classOnly.output)")
    }

    @Test func retryAndDropPrintWhatTheyDid() throws {
        let retry = try StandIn([HostileTextTests.response(1, ["sink": "loyalty", "requeued": 2])])
        defer { retry.stop() }
        let retried = try HostileTextTests.passtap(["forward", "retry", "loyalty"], against: retry)
        #expect(retried.status == 0 && retried.output == "loyalty: 2 dead events queued again\n", "\(retried.output)")
        let drop = try StandIn([HostileTextTests.response(1, ["sink": "old-fleet", "dropped": 1])])
        defer { drop.stop() }
        let dropped = try HostileTextTests.passtap(["forward", "drop", "old-fleet"], against: drop)
        #expect(dropped.status == 0 && dropped.output == "old-fleet: dropped 1 event\n", "\(dropped.output)")
    }

    @Test func anUnknownSinkExits64WithTheDaemonsMessage() throws {
        let error: [String: Any] = [
            "jsonrpc": "2.0", "id": 1,
            "error": ["code": -32021, "message": "no forwarding sink is named \"loyalti\"", "data": ["reason": "unknown_sink"]],
        ]
        let daemon = try StandIn([error])
        defer { daemon.stop() }
        let (status, output) = try HostileTextTests.passtap(["forward", "drop", "loyalti"], against: daemon)
        #expect(status == 64, "\(output)")
        #expect(output.contains("no forwarding sink is named \"loyalti\" (unknown_sink -32021)"), "\(output)")
    }
}

extension ForwardCLITests {
    /// The built passtapd (no pcscd, no forwarder running): `forward status` says forwarding is
    /// off, a sink name is unknown (64), and a user without `manage` is refused `forward.drop`
    /// (forbidden) while `observe` still gives it the status.
    @Test(.enabled(if: getuid() == 0, "needs root to run passtap as another user"))
    func theRealDaemonAnswersTheForwardMethodsByRole() throws {
        let rig = try Rig(config: "group = \"nogroup\"\n[pcsc]\nenabled = false\n", pcscd: false)
        defer { rig.stop() }
        chmod(rig.directory.path, 0o755)
        let passtap = Rig.binaries.appendingPathComponent("passtap").path
        func run(_ arguments: [String], asNobody: Bool = false) throws -> (status: Int32, output: String) {
            let command = asNobody ? ("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", passtap]) : (passtap, [])
            let finished = try Spawned.finish(command.0, command.1 + arguments + ["--socket", rig.socketPath], deadline: 20)
            return (finished.status, finished.output)
        }
        let off = try run(["forward", "status"], asNobody: true)
        #expect(off.status == 0 && off.output.hasPrefix("forwarding is off"), "\(off.output)")
        let forbidden = try run(["forward", "drop", "loyalty"], asNobody: true)
        #expect(forbidden.status != 0 && forbidden.output.contains("(forbidden -32014)"), "\(forbidden.output)")
        let unknown = try run(["forward", "retry", "loyalty"])
        #expect(unknown.status == 64 && unknown.output.contains("(unknown_sink -32021)"), "\(unknown.output)")
    }
}
