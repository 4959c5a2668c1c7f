import Foundation
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// Google Smart Tap through the real stack: pcscd, the vsmartcard-vpcd reader, the virtual
    /// Android phone (`scripts/rig/virtual_android.py`, which verifies the reader's signature and
    /// encrypts with Python's `cryptography`, not our code; a ``PhoneRig`` with `android`) and the
    /// built passtapd with `[smarttap]`, seen by a socket client.
    @Suite(.serialized) struct SmartTapScenarioTests {
        /// A rig whose card 1 is the Android phone (or, with `.second`, card 2 beside the iPhone),
        /// with `[vas]` (loyalty and coffee) and `[smarttap]` for the phone's collector.
        static func rig(
            android: PhoneRig.Android = .only, socket: String = "", vas: String = "", extra: String = "", keyVersion: Int = 1
        ) throws -> PhoneRig {
            try PhoneRig(config: PhoneRig.config(vas: vas, socket: socket, extra: PhoneRig.smartTap(keyVersion: keyVersion) + extra), android: android)
        }

        /// The phone's own account of the last GET DATA (`stats`' `smarttap.last`).
        static func phoneSaw(_ phone: PhoneRig, card: Int = 1) throws -> [String: Any] {
            let stats = try #require(try phone.rig.cardCommand("stats", card: card)["smarttap"] as? [String: Any])
            return try #require(stats["last"] as? [String: Any], "the phone got no GET DATA: \(stats)")
        }

        static func objects(_ smartTap: [String: Any]) -> [[String: Any]] { smartTap["objects"] as? [[String: Any]] ?? [] }

        /// A successful read of the rig phone: the loyalty pass, the offer and the customer.
        static func expectBothPasses(_ smartTap: [String: Any]) {
            #expect(smartTap["status"] as? String == "success", "\(smartTap)")
            let objects = Self.objects(smartTap)
            #expect(objects.map { $0["type"] as? String } == ["loyalty", "offer"], "\(objects)")
            // The object ids are 8 bytes: read.result shows them in hex, as the phone sent them.
            #expect(objects.map { $0["object_id"] as? String } == [PhoneRig.androidLoyaltyID, PhoneRig.androidOfferID], "\(objects)")
            #expect(objects.map { $0["value"] as? String } == [PhoneRig.message, PhoneRig.androidOffer], "\(objects)")
            #expect((smartTap["customer_id"] as? String)?.uppercased() == PhoneRig.customerID, "\(smartTap)")
            #expect((smartTap["tap_id"] as? String)?.count == 32, "\(smartTap)")
        }

        @Test func aLoyaltyPassIsReadInOneTapWithTheCustomerAndTheReaderSignature() throws {
            let phone = try Self.rig()
            defer { phone.stop() }
            let result = try phone.tap()
            Self.expectBothPasses(try PhoneRig.smartTap(result))
            #expect(result["error"] is NSNull)

            // One SELECT OSE.VAS.01 (a 2.1 phone: no second SELECT), NEGOTIATE, GET DATA; the phone
            // checked the signature (no auth_failed) and was asked for collector 20180608.
            let apdus = try #require(try phone.rig.cardCommand("apdus")["apdus"] as? [String])
            #expect(apdus.filter { $0.hasPrefix("00A4040009A000000476D0000111") }.isEmpty, "\(apdus)")
            #expect(apdus.filter { $0.hasPrefix("9053") }.count == 1 && apdus.filter { $0.hasPrefix("9050") }.count == 1, "\(apdus)")
            let stats = try #require(try phone.rig.cardCommand("stats")["smarttap"] as? [String: Any])
            #expect(stats["auth_failed"] as? Int == 0 && stats["success"] as? Int == 1, "\(stats)")
            let saw = try Self.phoneSaw(phone)
            #expect(saw["collector_id"] as? Int == PhoneRig.collectorID && saw["key_version"] as? Int == 1, "\(saw)")
            // The default [vas] mode, vas_or_payment, is "pass over payment" (08) in the POS capabilities.
            #expect((saw["pos_capabilities"] as? String)?.hasSuffix("08") == true, "\(saw)")
        }

        @Test func theBundleIsCompressedWhenTheReaderOffersZlibAndReadEitherWay() throws {
            let phone = try Self.rig()
            defer { phone.stop() }
            Self.expectBothPasses(try PhoneRig.smartTap(try phone.tap()))
            let saw = try Self.phoneSaw(phone)
            let offered = try #require(UInt8((saw["pos_capabilities"] as? String ?? "").prefix(2), radix: 16))
            #expect(offered & 0x40 != 0, "PassTap offers zlib: \(saw)")
            #expect(saw["compressed"] as? Bool == true, "\(saw)")

            try phone.rig.cardCommand("compression never")
            Self.expectBothPasses(try PhoneRig.smartTap(try phone.tap()))
            #expect(try Self.phoneSaw(phone)["compressed"] as? Bool == false)
        }

        @Test func aLongAnswerInPiecesAndAnOlderPhoneThatNeedsTheSecondSelect() throws {
            let phone = try Self.rig()
            defer { phone.stop() }
            try phone.rig.cardCommand("chunk-bytes 32")
            Self.expectBothPasses(try PhoneRig.smartTap(try phone.tap()))
            #expect((try Self.phoneSaw(phone)["chunks"] as? Int ?? 0) > 3)

            try phone.rig.cardCommand("chunk-bytes 250")
            try phone.rig.cardCommand("legacy-select on")
            Self.expectBothPasses(try PhoneRig.smartTap(try phone.tap()))
            let apdus = try #require(try phone.rig.cardCommand("apdus")["apdus"] as? [String])
            #expect(apdus.contains { $0.hasPrefix("00A4040009A000000476D0000111") }, "\(apdus)")
        }

        @Test func theVASModesAreThePOSCapabilitiesVASType() throws {
            for (mode, byte) in [("vas_only", "01"), ("vas_and_payment", "04")] {
                let phone = try Self.rig(vas: "mode = \"\(mode)\"")
                defer { phone.stop() }
                #expect(try PhoneRig.smartTap(try phone.tap())["status"] as? String == "success")
                #expect((try Self.phoneSaw(phone)["pos_capabilities"] as? String)?.hasSuffix(byte) == true, "\(mode)")
            }
        }

        @Test func statusWordsUserMustChooseNoPassRetryAndRefused() throws {
            let phone = try Self.rig()
            defer { phone.stop() }
            for (mode, status, sw) in [
                ("user_must_choose", "user_must_choose", "9302"), ("no_pass", "no_pass", "9001"), ("retry", "retry", "9200"),
                ("too_many_requests", "refused", "9406"),
            ] {
                try phone.rig.cardCommand("misbehave \(mode)")
                let smartTap = try PhoneRig.smartTap(try phone.tap())
                #expect(smartTap["status"] as? String == status, "\(mode): \(smartTap)")
                #expect(smartTap["sw"] as? String == sw, "\(mode): \(smartTap)")
                #expect(Self.objects(smartTap).isEmpty, "\(mode): \(smartTap)")
            }
            try phone.rig.cardCommand("misbehave none")
            Self.expectBothPasses(try PhoneRig.smartTap(try phone.tap()))
        }

        @Test func aReaderKeyThePhoneDoesNotTrustReadsNothing() throws {
            // The daemon signs with key version 2; the phone knows the key as version 1.
            let phone = try Self.rig(keyVersion: 2)
            defer { phone.stop() }
            let smartTap = try PhoneRig.smartTap(try phone.tap())
            #expect(smartTap["status"] as? String != "success", "\(smartTap)")
            #expect(Self.objects(smartTap).isEmpty)
            #expect(try phone.rig.cardCommand("stats")["smarttap"].flatMap { ($0 as? [String: Any])?["auth_failed"] as? Int } == 1)
        }

        @Test func hostilePhonesGiveAProblemAndTheNextTapStillReads() throws {
            let phone = try Self.rig()
            defer { phone.stop() }
            for (mode, status) in [
                ("bad_mac", "bad_mac"), ("truncated_records", "malformed_response"), ("wrong_lengths", "malformed_response"),
                ("endless_9100", "malformed_response"), ("oversized_inflation", "malformed_response"), ("bad_dpk", "malformed_response"),
            ] {
                try phone.rig.cardCommand("misbehave \(mode)")
                let smartTap = try PhoneRig.smartTap(try phone.tap())
                #expect(smartTap["status"] as? String == status, "\(mode): \(smartTap)")
                #expect(smartTap["problem"] is String, "\(mode): \(smartTap)")
                #expect(Self.objects(smartTap).isEmpty, "\(mode): \(smartTap)")
                try phone.rig.cardCommand("misbehave none")
                Self.expectBothPasses(try PhoneRig.smartTap(try phone.tap()))
            }
            #expect(kill(phone.rig.daemonPID, 0) == 0, "passtapd survived")
        }

        @Test func anIPhoneTapAndAnAndroidTapInTheSameRunEachGiveTheirPass() throws {
            let phones = try Self.rig(android: .second)
            defer { phones.stop() }
            let apple = try phones.tap()
            #expect(apple["reader"] as? String == phones.rig.readerID)
            #expect(PhoneRig.entry(in: apple)?["status"] as? String == "success")
            #expect(PhoneRig.entry(in: apple)?["message"] as? String == PhoneRig.message)
            #expect(apple["smarttap"] is NSNull, "\(apple)")

            let google = try phones.tap(card: 2)
            #expect(google["reader"] as? String == phones.rig.secondReaderID)
            Self.expectBothPasses(try PhoneRig.smartTap(google))

            // And again, in the other order, on the same daemon.
            Self.expectBothPasses(try PhoneRig.smartTap(try phones.tap(card: 2)))
            #expect(PhoneRig.entry(in: try phones.tap())?["status"] as? String == "success")
        }

        /// Runs the built `passtap` against `phone`'s daemon.
        static func passtap(_ phone: PhoneRig, _ arguments: [String]) throws -> Spawned.Finished {
            try Spawned.finish(Rig.binaries.appendingPathComponent("passtap").path, arguments + ["--socket", phone.rig.socketPath])
        }

        /// The lines `watch` printed for its read.results (after stderr's banner).
        static func printed(_ output: String) -> [String] {
            output.split(separator: "\n").map(String.init)
        }

        /// An Android phone (reader 00 01) and an NTAG with a URI and a text (reader 00 00) on one
        /// daemon with `[vas]` and `[smarttap]`, as a cashier sees them through `passtap`: the
        /// Smart Tap pass and the tag's records, no Apple VAS line for the Android phone, the
        /// outcomes `pass` and `tag`; `pass.read` and `vas.read` both answered by one tap; a read
        /// that only tags tapped says so and names --wait; a reader that matches nothing lists the
        /// readers one a line.
        @Test func passReadAndWatchShowTheAndroidPassAndTheTag() throws {
            // Two reads by one user wait at once: pass-read's and the socket client's.
            let phones = try Self.rig(android: .besideATag("ntag215-ndef"), socket: "vas_reads_per_uid = 2")
            defer { phones.stop() }
            let tag = try phones.tapUntilRead()
            try NDEFTags.expectTheTwoRecords(tag, tagType: "type2")

            // pass-read (the pass.read method) and a socket client's vas.read wait on the phone's
            // reader; taps until both are answered (a tap before a call is queued is a plain tap).
            let reading = try Spawned.startCapturing(
                Rig.binaries.appendingPathComponent("passtap").path, ["pass-read", "--socket", phones.rig.socketPath, "PCD 00 01", "--wait", "30"])
            let caller = try LineClient(path: phones.rig.socketPath)
            try caller.sendLine(#"{"jsonrpc":"2.0","id":3,"method":"vas.read","params":{"reader":"pcsc:Virtual PCD 00 01","timeout_ms":30000}}"#)
            var answered: [String: Any]?
            for _ in 0..<10 where answered == nil || !reading.hasFinished() {
                Self.expectBothPasses(try PhoneRig.smartTap(try phones.tap(card: 2)))
                if answered == nil { answered = try? caller.readJSON(timeout: 2, what: "vas.read answer", until: { $0["id"] as? Int == 3 }) }
            }
            let answer = try #require(answered, "vas.read was not answered by any of 10 taps")
            Self.expectBothPasses(try PhoneRig.smartTap(try #require(answer["result"] as? [String: Any], "\(answer)")))
            let read = reading.finish()
            #expect(read.status == 0, "\(read.output)")
            let smartTapHead = "smarttap: v0001 success (9000) collector=\(PhoneRig.collectorID) customer=\"\(PhoneRig.customerID)\""
            // The object id as the phone sent it, in hex (it was printed in decimal, "161").
            let loyalty = "object=\"\(PhoneRig.androidLoyaltyID)\" value=\"\(PhoneRig.message)\""
            let isLoyalty = { (line: String) in line.hasPrefix("smarttap loyalty: issuer=") && line.hasSuffix(loyalty) }
            #expect(read.output.contains("[pcsc:Virtual PCD 00 01] uid="), "\(read.output)")
            #expect(read.output.contains("  " + smartTapHead), "\(read.output)")
            #expect(Self.printed(read.output).contains { isLoyalty(String($0.dropFirst(2))) }, "\(read.output)")
            #expect(!read.output.contains("vas") && !read.output.contains("Apple"), "\(read.output)")
            // The tap that answered them is logged as one on demand, under the key's new name.
            #expect(phones.rig.daemonLog.contains("pass.on_demand=true"), "\(phones.rig.daemonLog)")
            #expect(!phones.rig.daemonLog.contains("vas.on_demand"), "\(phones.rig.daemonLog)")

            // watch replays the tag's tap and a phone's: the records, the pass, nothing of VAS.
            let watch = try Self.passtap(phones, ["watch", "--since", "1", "--kinds", "read.result", "--count", "2"])
            #expect(watch.status == 0, "\(watch.output)")
            let lines = Self.printed(watch.output)
            #expect(lines.contains { $0.contains("read.result [pcsc:Virtual PCD 00 00]") && $0.hasSuffix("target=memory (no APDU session)") }, "\(watch.output)")
            #expect(lines.contains("    ndef type2: 2 records"), "\(watch.output)")
            #expect(lines.contains("    ndef U: uri=\"\(NDEFTags.uri)\""), "\(watch.output)")
            #expect(lines.contains("    ndef T en: text=\"\(NDEFTags.text)\""), "\(watch.output)")
            #expect(lines.contains { $0.hasPrefix("    " + smartTapHead) }, "\(watch.output)")
            #expect(lines.contains { isLoyalty(String($0.dropFirst(4))) }, "\(watch.output)")
            #expect(!watch.output.contains("vas") && !watch.output.contains("Apple VAS"), "\(watch.output)")

            // The tag counts as a tag, the phone as a pass.
            let readers = try Self.passtap(phones, ["readers"])
            let tagLine = Self.printed(readers.output).first { $0.hasPrefix("pcsc:Virtual PCD 00 00") } ?? ""
            let phoneLine = Self.printed(readers.output).first { $0.hasPrefix("pcsc:Virtual PCD 00 01") } ?? ""
            #expect(tagLine.hasSuffix("taps: tag 1"), "\(readers.output)")
            #expect(phoneLine.contains("taps: pass ") && !phoneLine.contains("application") && !phoneLine.contains("nothing"), "\(readers.output)")

            // vas-read, the old name, on the tag's reader: the tags pass it over, and --wait says so.
            let waiting = try Spawned.startCapturing(
                Rig.binaries.appendingPathComponent("passtap").path, ["vas-read", "--socket", phones.rig.socketPath, "PCD 00 00", "--wait", "1"])
            for _ in 0..<40 where !waiting.hasFinished() {
                try NDEFTags.expectTheTwoRecords(try phones.tapUntilRead(), tagType: "type2")
            }
            let skipped = waiting.finish()
            #expect(skipped.status == 75, "\(skipped.output)")
            #expect(skipped.output.contains("no phone arrived on pcsc:Virtual PCD 00 00 within --wait 1 s, but "), "\(skipped.output)")
            #expect(skipped.output.contains("of a tag or memory card came: tags do not count for pass-read"), "\(skipped.output)")
            #expect(!skipped.output.contains("timeout_ms"), "\(skipped.output)")

            // A reader that matches nothing: the readers, one a line.
            let nosuch = try Self.passtap(phones, ["pass-read", "nosuch"])
            #expect(nosuch.status == 64, "\(nosuch.output)")
            #expect(nosuch.output.contains("no reader matches \"nosuch\". Readers:\n  pcsc:Virtual PCD 00 00\n  pcsc:Virtual PCD 00 01"), "\(nosuch.output)")
            #expect(!nosuch.output.contains("\\u{A}"), "\(nosuch.output)")
        }

        @Test(.enabled(if: getuid() == 0, "needs root to run a client as another user"))
        func aWatcherWithoutReadSeesTheSmartTapStatusWithTheObjectsWithheld() throws {
            // The socket's group lets nobody in; read only for root (as AccessScenarioTests' rig).
            let shared = try PhoneRig(
                config: PhoneRig.config(socket: #"group = "nogroup""#, extra: PhoneRig.smartTap() + "[access]\nread = [\"uid:0\"]"), android: .only)
            defer { shared.stop() }
            chmod(shared.rig.directory.path, 0o755)
            let (watcher, output) = try AccessScenarioTests.nobody(
                shared, lines: [#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"kinds":["read.result"]}}"#], name: "watcher")
            try shared.rig.waitFor("nobody's subscription") { AccessScenarioTests.text(output).contains(#""next_seq""#) }

            Self.expectBothPasses(try PhoneRig.smartTap(try shared.tap()))
            #expect(watcher.wait(seconds: 20).inTime)
            let seen = try AccessScenarioTests.messages(output)
            let event = try #require(seen.last?["params"] as? [String: Any], "\(seen)")
            let withheld = try PhoneRig.smartTap(event)
            #expect(withheld["status"] as? String == "success", "\(withheld)")
            #expect(withheld["withheld"] as? String == "access", "\(withheld)")
            #expect(Self.objects(withheld).isEmpty && withheld["customer_id"] as? String == nil, "\(withheld)")
            let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
            #expect(!text.contains(PhoneRig.message) && !text.contains(PhoneRig.customerID), "\(text)")
        }
    }
}
