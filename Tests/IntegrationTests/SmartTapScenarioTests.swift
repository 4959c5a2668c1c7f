import Foundation
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
        static func rig(android: PhoneRig.Android = .only, vas: String = "", extra: String = "", keyVersion: Int = 1) throws -> PhoneRig {
            try PhoneRig(config: PhoneRig.config(vas: vas, extra: PhoneRig.smartTap(keyVersion: keyVersion) + extra), android: android)
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

        @Test func vasReadIsAnsweredForAnAndroidPhone() throws {
            let phone = try Self.rig()
            defer { phone.stop() }
            let caller = try LineSocket(path: phone.rig.socketPath)
            try caller.sendLine(#"{"jsonrpc":"2.0","id":3,"method":"vas.read","params":{"reader":"pcsc:Virtual PCD 00 00","timeout_ms":30000}}"#)
            // No sleep as synchronisation: tap until the call is answered (as VASScenarioTests does).
            var answered: [String: Any]?
            for _ in 0..<10 where answered == nil {
                _ = try phone.tap()
                answered = try? caller.readJSON(timeout: 2, what: "vas.read answer", until: { $0["id"] as? Int == 3 })
            }
            let answer = try #require(answered, "vas.read was not answered by any of 10 taps")
            let result = try #require(answer["result"] as? [String: Any], "\(answer)")
            Self.expectBothPasses(try PhoneRig.smartTap(result))
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
