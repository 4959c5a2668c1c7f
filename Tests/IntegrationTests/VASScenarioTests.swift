import Foundation
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// Apple VAS through the real stack: pcscd, the vsmartcard-vpcd reader, our virtual iPhone
    /// (a ``PhoneRig``) and the built passtapd, seen by a socket client.
    @Suite(.serialized) struct VASScenarioTests {
        static let loyalty = PhoneRig.loyalty
        static let coffee = PhoneRig.coffee

        /// A phone rig (the phone holds only the coffee pass) with a daemon configured for
        /// loyalty then coffee; `phoneKey` names which key file the phone encrypts the coffee pass
        /// for, the other arguments are ``PhoneRig/config(merchants:session:vas:socket:extra:keyFolder:)``'s.
        static func rig(phoneKey: String = "coffee.pem", vas: String = "", socket: String = "", extra: String = "") throws -> PhoneRig {
            try PhoneRig(config: PhoneRig.config(vas: vas, socket: socket, extra: extra), phoneKey: phoneKey)
        }

        @Test func twoMerchantsPhoneHasOnlyTheSecondThenThePaymentApplicationInTheSameTap() throws {
            let vas = try Self.rig()
            defer { vas.stop() }
            let result = try vas.tap()
            let entries = try PhoneRig.entries(result)
            #expect(entries.map { $0["pass_type_id"] as? String } == [Self.loyalty, Self.coffee])
            #expect(entries[0]["status"] as? String == "data_not_found" && entries[0]["sw"] as? String == "6A83")
            #expect(entries[0]["message"] is NSNull)
            #expect(entries[1]["status"] as? String == "success", "\(entries[1])")
            #expect(entries[1]["message"] as? String == "member 0042")
            #expect(entries[1]["message_hex"] as? String == "6D656D6265722030303432")
            #expect(entries[1]["key_id"] as? String == vas.coffeeKeyID)
            let raw = try #require(entries[1]["timestamp_raw"] as? Int)
            #expect(abs(Double(raw + 978_307_200) - Date().timeIntervalSince1970) < 30)
            let phone = try #require(result["vas"] as? [String: Any])
            #expect(phone["offered"] as? Bool == true && phone["wallet"] as? String == "ApplePay" && phone["version"] as? String == "0100")
            #expect((phone["capabilities"] as? [String: Any])?["hex"] as? String == "0000003E")
            #expect((result["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010")
            #expect(result["error"] is NSNull)

            // The phone saw one SELECT OSE.VAS.01, then GET VAS DATA in configured order, the "more"
            // bit (9F26 byte 4, 0x80) on the first only.
            let apdus = try #require(try vas.rig.cardCommand("apdus")["apdus"] as? [String])
            let requests = apdus.filter { $0.hasPrefix("80CA01") }
            #expect(requests.count == 2)
            #expect(requests[0].contains("9F260400800080") && requests[1].contains("9F260400800000"))
            #expect(apdus.first { $0.hasPrefix("00A4") } == "00A404000A4F53452E5641532E303100")
        }

        @Test func passNeedingAuthenticationThenReadOnceReleased() throws {
            let vas = try Self.rig()
            defer { vas.stop() }
            try vas.rig.cardCommand("needs-auth \(Self.coffee) on")
            let locked = try PhoneRig.entries(try vas.tap())[1]
            #expect(locked["status"] as? String == "data_not_activated" && locked["sw"] as? String == "6287")
            #expect(locked["message"] is NSNull)
            try vas.rig.cardCommand("needs-auth \(Self.coffee) off")
            #expect(try PhoneRig.entries(try vas.tap())[1]["status"] as? String == "success")
        }

        @Test func aPassForAnotherKeyIsNoMatchingKeyShowingThePhonesKeyID() throws {
            let vas = try Self.rig(phoneKey: "stranger.pem")
            defer { vas.stop() }
            let entry = try PhoneRig.entries(try vas.tap())[1]
            #expect(entry["status"] as? String == "no_matching_key", "\(entry)")
            #expect(entry["key_id"] as? String == vas.strangerKeyID)
            #expect(entry["message"] is NSNull && entry["message_hex"] is NSNull)
        }

        @Test func aStalePassIsWithheldAndVariantBDecrypts() throws {
            let vas = try Self.rig()
            defer { vas.stop() }
            try vas.rig.cardCommand("clock-offset -3600")
            let stale = try PhoneRig.entries(try vas.tap())[1]
            #expect(stale["status"] as? String == "stale", "\(stale)")
            #expect(stale["message"] is NSNull && stale["timestamp"] is NSNull)
            try vas.rig.cardCommand("clock-offset 0")
            try vas.rig.cardCommand("variant B")
            let b = try PhoneRig.entries(try vas.tap())[1]
            #expect(b["status"] as? String == "success" && b["variant"] as? String == "B" && b["message"] as? String == "member 0042")
        }

        @Test func aFixedPassTimestampIsPublishedExactlyWhenFreshnessIsOff() throws {
            let vas = try Self.rig(vas: "freshness_s = 0")
            defer { vas.stop() }
            // 800000000 s after 2001-01-01T00:00:00Z is 2026-05-09T06:13:20Z (Python's datetime).
            try vas.rig.cardCommand("timestamp \(Self.coffee) 800000000")
            let entry = try PhoneRig.entries(try vas.tap())[1]
            #expect(entry["status"] as? String == "success", "\(entry)")
            #expect(entry["timestamp_raw"] as? Int == 800_000_000)
            #expect(entry["timestamp"] as? String == "2026-05-09T06:13:20.000Z")
        }

        @Test func eachMisbehaviourGivesACleanResultAndTheNextTapReads() throws {
            let vas = try Self.rig()
            defer { vas.stop() }
            let cases: [(mode: String, status: String?, error: String?)] = [
                ("truncated_tlv", "malformed_response", nil),
                ("missing_9f27", "malformed_response", nil),
                ("oversized_cryptogram", "malformed_response", nil),
                ("chain_61xx", "success", nil),
                ("chain_forever", nil, "too_many_round_trips"),
            ]
            for misbehaviour in cases {
                try vas.rig.cardCommand("misbehave \(misbehaviour.mode)")
                let result = try vas.tap()
                let entry = try PhoneRig.entries(result)[1]
                if let status = misbehaviour.status {
                    #expect(entry["status"] as? String == status, "\(misbehaviour.mode): \(entry)")
                    #expect(entry["sw"] as? String == "9000", "\(misbehaviour.mode): \(entry)")
                    #expect(result["error"] is NSNull, "\(misbehaviour.mode): \(result)")
                }
                if misbehaviour.status == "malformed_response" {
                    #expect(entry["message"] is NSNull && entry["message_hex"] is NSNull && entry["timestamp"] is NSNull)
                    #expect((entry["problem"] as? String)?.isEmpty == false, "\(misbehaviour.mode): \(entry)")
                }
                if misbehaviour.mode == "chain_61xx" {
                    #expect(entry["message"] as? String == "member 0042")
                    let apdus = try #require(try vas.rig.cardCommand("apdus")["apdus"] as? [String])
                    #expect(apdus.contains { $0.hasPrefix("00C00000") }, "GET RESPONSE after 61xx: \(apdus)")
                }
                if let code = misbehaviour.error {
                    #expect((result["error"] as? [String: Any])?["code"] as? String == code, "\(misbehaviour.mode): \(result)")
                    // The merchant being asked when the phone went wrong says so; it was not skipped.
                    #expect((entry["problem"] as? String)?.contains("tap ended without a usable answer (too_many_round_trips") == true, "\(entry)")
                }
                try vas.rig.cardCommand("misbehave none")
                let next = try PhoneRig.entries(try vas.tap())[1]
                #expect(next["status"] as? String == "success", "after \(misbehaviour.mode): \(next)")
            }
            #expect(Rig.isAlive(vas.rig.daemonPID))
        }

        @Test func aPlainCardIsNotOfferedAndStillGivesItsApplication() throws {
            let vas = try Self.rig()
            defer { vas.stop() }
            try vas.rig.cardCommand("misbehave no_vas_applet")
            let result = try vas.tap()
            let phone = try #require(result["vas"] as? [String: Any])
            #expect(phone["offered"] as? Bool == false)
            #expect(try PhoneRig.entries(result).allSatisfy { $0["status"] as? String == "not_requested" })
            #expect((result["aid"] as? [String: Any])?["selected"] as? String == "A0000000041010")
        }

        @Test func vasReadAnswersWithTheNextTapOnlyAndTimesOutWithoutOne() throws {
            let vas = try Self.rig()
            defer { vas.stop() }
            let caller = try LineClient(path: vas.rig.socketPath)

            // No tap: a timeout error with reason "timeout".
            try caller.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"vas.read","params":{"reader":"pcsc:Virtual PCD 00 00","timeout_ms":300}}"#)
            let timedOut = try caller.readJSON(what: "vas.read timeout") { $0["id"] as? Int == 1 }
            let error = try #require(timedOut["error"] as? [String: Any])
            #expect(error["code"] as? Int == -32010)
            #expect((error["data"] as? [String: Any])?["reason"] as? String == "timeout")

            // A phone already on the reader does not count: it stays there (`tap` answers at once)
            // while vas.read waits, and vas.read times out instead of answering with it.
            try vas.rig.cardCommand("tap")
            try vas.ledger.next("read.result")
            try caller.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"vas.read","params":{"reader":"pcsc:Virtual PCD 00 00","timeout_ms":800}}"#)
            let present = try caller.readJSON(what: "vas.read with a card present") { $0["id"] as? Int == 2 }
            #expect((present["error"] as? [String: Any])?["code"] as? Int == -32010, "\(present)")
            #expect(try vas.rig.cardCommand("stats")["present"] as? Bool == true)
            try vas.rig.cardCommand("remove")
            try vas.ledger.next("card.removed")

            // The next tap answers it, shaped by the merchants subset, and still emits read.result.
            // No sleep as synchronisation: tap until the call is answered (a tap before the call is
            // queued is simply a plain tap); the answering tap is the last one.
            try caller.sendLine(#"{"jsonrpc":"2.0","id":3,"method":"vas.read","params":{"reader":"pcsc:Virtual PCD 00 00","merchants":["pass.com.example.coffee"],"timeout_ms":30000}}"#)
            var answered: (event: [String: Any], answer: [String: Any])?
            for _ in 0..<10 where answered == nil {
                let event = try vas.tap()
                if let answer = try? caller.readJSON(timeout: 2, what: "vas.read answer", until: { $0["id"] as? Int == 3 }) {
                    answered = (event, answer)
                }
            }
            let (event, answer) = try #require(answered, "vas.read was not answered by any of 10 taps")
            let result = try #require(answer["result"] as? [String: Any], "\(answer)")
            #expect(result["reader"] as? String == vas.rig.readerID)
            let entries = try PhoneRig.entries(result)
            #expect(entries.map { $0["status"] as? String } == ["not_requested", "success"])
            #expect(entries[1]["message"] as? String == "member 0042")
            #expect(try PhoneRig.entries(event).map { $0["status"] as? String } == ["not_requested", "success"])
            let apdus = try #require(try vas.rig.cardCommand("apdus")["apdus"] as? [String])
            #expect(apdus.filter { $0.hasPrefix("80CA01") }.count == 1)
        }
    
        /// Runs the built `passtap` with `arguments`; waits for it and returns its status and output.
        static func passtap(_ arguments: [String]) throws -> Spawned.Finished {
            try Spawned.finish(Rig.binaries.appendingPathComponent("passtap").path, arguments)
        }

        @Test func watchAndVasReadShowThePassAsACashierReadsIt() throws {
            let vas = try Self.rig()
            defer { vas.stop() }
            _ = try vas.tap()
            // The tap is in the daemon's buffer: watch replays it and stops after one read.result.
            let watch = try Self.passtap(["watch", "--socket", vas.rig.socketPath, "--since", "1", "--kinds", "read.result", "--count", "1"])
            #expect(watch.status == 0, "\(watch.output)")
            // stderr's "watching passtapd instance ..." banner comes first; the event follows.
            let lines = Array(watch.output.split(separator: "\n").map(String.init).drop { !$0.contains(" read.result [") })
            #expect(lines.count == 4, "\(watch.output)")
            #expect(lines.first?.contains("read.result [pcsc:Virtual PCD 00 00]") == true, "\(watch.output)")
            #expect(lines.contains { $0.hasPrefix("    vas: ApplePay v0100 caps=0000003E (encrypted,vas_may_be_skipped,vas_may_be_performed,payment_may_be_skipped,payment_may_be_performed) mode=vas_or_payment") }, "\(watch.output)")
            #expect(lines.contains("    vas \(Self.loyalty): data_not_found (6A83)"), "\(watch.output)")
            let pass = try #require(lines.first { $0.hasPrefix("    vas \(Self.coffee): success key=\(vas.coffeeKeyID) at 20") }, "\(watch.output)")
            #expect(pass.hasSuffix(".000Z message=\"member 0042\""), "\(pass)")

            // vas-read: a pass within --wait exits 0 and prints it; no card within --wait exits 75.
            let waiting = try Spawned.startCapturing(
                Rig.binaries.appendingPathComponent("passtap").path,
                ["vas-read", "--socket", vas.rig.socketPath, "PCD 00 00", "--merchant", Self.coffee, "--wait", "20"])
            // Tap until vas-read has its answer and exits (a tap before its call is queued is a plain
            // tap), rather than sleeping and hoping it is queued by then.
            for _ in 0..<10 where !waiting.hasFinished() {
                _ = try vas.tap()
            }
            let read = waiting.finish()
            #expect(read.status == 0, "\(read.output)")
            #expect(read.output.contains("vas \(Self.loyalty): not_requested"), "\(read.output)")
            #expect(read.output.contains("vas \(Self.coffee): success key=\(vas.coffeeKeyID)"), "\(read.output)")
            let none = try Self.passtap(["vas-read", "--socket", vas.rig.socketPath, "PCD 00 00", "--wait", "0.3"])
            #expect(none.status == 75, "\(none.output)")
        }
}
}
