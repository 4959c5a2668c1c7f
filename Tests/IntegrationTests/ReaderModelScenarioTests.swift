import Foundation
import PassTapTestNetwork
import Testing
import VAS

#if canImport(Glibc)
import Glibc
import Wallets
#endif

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// The shared reader model through the real stack (pcscd, vpcd, the virtual card and the built
    /// passtapd): shutdown with a card that never answers, a reader another process holds, and a
    /// card without ISO-DEP.
    @Suite(.serialized) struct ReaderModelScenarioTests {
        static let coffee = "pass.com.example.coffee"

        private func event(_ client: LineClient, _ kind: String, timeout: Double = 10) throws -> [String: Any] {
            let message = try client.readJSON(timeout: timeout, what: kind) { message in
                (message["params"] as? [String: Any])?["kind"] as? String == kind
            }
            return message["params"] as! [String: Any]
        }

        @Test func sigtermExitsWithinTwoSecondsWithAStuckCardQueuedTransmitsAndAClaimedVASRead() throws {
            let config = """
                allow_transmit = true
                [session]
                aids = ["A0000000041010"]
                [vas]
                enabled = true
                [[vas.merchants]]
                pass_type_id = "\(Self.coffee)"
                keys = ["coffee.pem"]
                """
            let rig = try Rig(config: config, cardArguments: ["--phone", "{rig}/phone.json"]) { folder in
                let key = MerchantKey.generate()
                try key.write(toFile: folder.appendingPathComponent("coffee.pem").path, format: .sec1)
                let phone: [String: Any] = [
                    "passes": [["pass_type_id": Self.coffee, "key": folder.appendingPathComponent("coffee.pem").path, "message": "member 0042"]]
                ]
                try JSONSerialization.data(withJSONObject: phone).write(to: folder.appendingPathComponent("phone.json"))
            }
            defer { rig.stop() }
            let (watcher, _) = try rig.subscriber(kinds: ["card.inserted"])
            let caller = try LineClient(path: rig.socketPath)
            try caller.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"vas.read","params":{"reader":"pcsc:Virtual PCD 00 00","timeout_ms":60000}}"#)
            // Every APDU answered 2 s late: the UID read of the tap takes 2 s, long after the
            // vas.read above is queued, and the session claims it the moment card.inserted is out.
            try rig.cardCommand("delay 2000")
            try rig.cardCommand("tap")
            _ = try event(watcher, "card.inserted", timeout: 15)
            // From here on the phone never answers: the reader thread is stuck in the VAS session.
            try rig.cardCommand("stall")
            let transmitters = try (0..<2).map { index in
                let client = try LineClient(path: rig.socketPath)
                try client.sendLine(#"{"jsonrpc":"2.0","id":\#(10 + index),"method":"card.transmit","params":{"reader":"pcsc:Virtual PCD 00 00","apdu":"00A4040007A0000000041010"}}"#)
                return client
            }
            // The transmits are queued behind the stuck session; status still answers at once.
            let probe = try LineClient(path: rig.socketPath)
            try probe.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"readers.list"}"#)
            let readers = try probe.readJSON(what: "readers.list") { $0["id"] as? Int == 2 }
            let listed = try #require(((readers["result"] as? [String: Any])?["readers"] as? [[String: Any]])?.first)
            #expect(listed["state"] as? String == "present")

            let seconds = rig.stopDaemon()
            #expect(seconds < 2, "SIGTERM took \(seconds) s\n\(rig.daemonLog)")
            // The socket file goes only on a clean exit (not a crash at the cancellation deadline).
            #expect(!FileManager.default.fileExists(atPath: rig.socketPath), "\(rig.daemonLog)")
            for client in transmitters + [caller] {
                // Each waiter is answered "shutting down", or sees the connection close; none hangs.
                if let answer = try? client.readJSON(timeout: 5, what: "an answer at shutdown", until: { $0["id"] != nil }) {
                    #expect((answer["error"] as? [String: Any])?["code"] as? Int == -32008, "\(answer)")
                }
            }
        }

        @Test func twoReadersTappedAtOnceRunTheirSessionsInParallel() throws {
            // Two SELECTs per session, each answered 700 ms late: 1.4 s of the card's own time.
            let config = """
                [session]
                aids = ["A0000000031010", "A0000000041010"]
                """
            let ownSeconds = 1.4
            let rig = try Rig(config: config, secondCardArguments: [])
            defer { rig.stop() }
            let (client, _) = try rig.subscriber(kinds: ["card.inserted", "read.result"])
            try rig.cardCommand("delay 700", card: 1)
            try rig.cardCommand("delay 700", card: 2)
            try rig.cardCommand("tap", card: 1)
            try rig.cardCommand("tap", card: 2)
            var times: [String: [String: Date]] = [:]
            while times.values.map(\.count).reduce(0, +) < 4 {
                let message = try client.readJSON(timeout: 20, what: "both readers' card.inserted and read.result") { $0["method"] as? String == "event" }
                let params = try #require(message["params"] as? [String: Any])
                let reader = try #require(params["reader"] as? String)
                let kind = try #require(params["kind"] as? String)
                let time = try #require((params["time"] as? String).flatMap(Self.rfc3339))
                times[reader, default: [:]][kind] = time
                if kind == "read.result" {
                    #expect((params["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010", "\(params)")
                }
            }
            let first = try #require(times[rig.readerID])
            let second = try #require(times[rig.secondReaderID])
            let sessions = try [first, second].map { entry in
                try #require(entry["read.result"]).timeIntervalSince(try #require(entry["card.inserted"]))
            }
            // The sessions overlap: each reader's result came after both cards were in.
            #expect(try #require(first["read.result"]) > (try #require(second["card.inserted"])))
            #expect(try #require(second["read.result"]) > (try #require(first["card.inserted"])))
            // Neither waited on the other: what a session took beyond its own card's time is
            // less than the other session took.
            #expect(sessions[0] - ownSeconds < sessions[1], "sessions took \(sessions) s")
            #expect(sessions[1] - ownSeconds < sessions[0], "sessions took \(sessions) s")
            try rig.cardCommand("remove", card: 1)
            try rig.cardCommand("remove", card: 2)
        }

        private static func rfc3339(_ text: String) -> Date? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter.date(from: text)
        }

        @Test func aReaderAnotherProcessHoldsIsUnavailableWithAReasonUntilItLetsGo() throws {
            let config = """
                [session]
                aids = ["A0000000041010"]
                """
            let rig = try Rig(config: config)
            defer { rig.stop() }
            rig.stopDaemon()
            try rig.cardCommand("tap")
            let holder = try rig.holdReader()
            defer {
                holder.signal(SIGTERM)
                holder.wait()
            }
            try rig.startDaemon(config: config)
            let (client, _) = try rig.subscriber(since: 1, kinds: ["reader.added", "reader.changed", "card.inserted", "read.result"])
            let changed = try event(client, "reader.changed")
            #expect(changed["reader"] as? String == rig.readerID)
            #expect(changed["state"] as? String == "unavailable")
            let reason = try #require(changed["reason"] as? String)
            #expect(reason.contains("exclusively"), "\(reason)")

            let lister = try LineClient(path: rig.socketPath)
            try lister.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"readers.list"}"#)
            let answer = try lister.readJSON(what: "readers.list") { $0["id"] as? Int == 1 }
            let readers = try #require((answer["result"] as? [String: Any])?["readers"] as? [[String: Any]])
            let held = try #require(readers.first { $0["id"] as? String == rig.readerID })
            #expect(held["state"] as? String == "unavailable")
            #expect(held["reason"] as? String == reason)
            let other = try #require(readers.first { $0["id"] as? String == "pcsc:Virtual PCD 00 01" })
            #expect(other["state"] as? String == "empty" && other["reason"] is NSNull)

            // The other program lets go: the reader is usable again and the card is read.
            holder.signal(SIGTERM)
            let usable = try event(client, "reader.changed", timeout: 15)
            #expect(usable["state"] as? String == "empty")
            #expect(usable["reason"] is NSNull)
            let result = try event(client, "read.result", timeout: 15)
            #expect((result["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010")
            #expect(result["target"] as? String == "iso_dep")
        }

        @Test func aMemoryCardGivesItsIdentityWithoutAnAPDUSessionAndTakesPseudoAPDUs() throws {
            let config = """
                allow_transmit = true
                [session]
                aids = ["A0000000041010"]
                """
            let rig = try Rig(config: config, cardArguments: ["--profile", "memory-ultralight"])
            defer { rig.stop() }
            let (client, _) = try rig.subscriber(kinds: ["card.inserted", "read.result"])
            try rig.cardCommand("tap")
            let inserted = try event(client, "card.inserted")
            #expect(inserted["atr"] as? String == "3B8F8001804F0CA0000003060300030000000068")
            let uid = try #require(inserted["uid"] as? String)
            let result = try event(client, "read.result")
            #expect(result["target"] as? String == "memory")
            #expect(result["uid"] as? String == uid)
            #expect(result["aid"] is NSNull && result["vas"] is NSNull && result["error"] is NSNull, "\(result)")
            // An Ultralight is a Type 2 tag: its capability container was read (this blank one
            // has none, a problem), and nothing else reached the card but the UID read: no SELECT.
            let ndef = try #require(result["ndef"] as? [String: Any], "\(result)")
            #expect(ndef["tag_type"] as? String == "type2" && ndef["problem"] is String, "\(ndef)")
            let stats = try rig.cardCommand("stats")
            #expect((stats["last"] as? [String: Any])?["apdus"] as? Int == 2, "\(stats)")

            // card.transmit still reaches the reader (a CCID reader's pseudo-APDUs for the tag).
            let caller = try LineClient(path: rig.socketPath)
            try caller.sendLine(#"{"jsonrpc":"2.0","id":3,"method":"card.transmit","params":{"reader":"pcsc:Virtual PCD 00 00","apdu":"FFCA000000","raw":true}}"#)
            let answer = try caller.readJSON(what: "card.transmit") { $0["id"] as? Int == 3 }
            #expect((answer["result"] as? [String: Any])?["response"] as? String == uid, "\(answer)")
            try rig.cardCommand("remove")
        }
    }
}
