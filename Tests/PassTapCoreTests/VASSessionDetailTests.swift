import Foundation
import ISO7816
import PassTapCore
import PassTapTestSupport
import Testing
import VAS
import VASSettings

/// Finer points of the VAS session: request order on the wire, the published timestamp, nonces,
/// URL-only merchants with `stop_on_first_pass`, an Apple answer that breaks §2.3, and the exact
/// JSON shape of an entry.
@Suite(.timeLimit(.minutes(1))) struct VASSessionDetailTests {
    let base = VASSessionTests()

    @Test func requestsGoOutInConfiguredOrderByTheirPassHash() throws {
        let (_, card) = base.run(VASSessionTests.phoneWithCoffee())
        let hashes = try base.getVASData(card).map { try #require(try VASPhone.dataObjects(of: $0).first(0x9F25)?.value).hexString }
        // SHA-256 of "pass.com.example.loyalty" then "pass.com.example.coffee", computed with
        // Python's hashlib, not with our code.
        #expect(hashes == [
            "5888D01EBEEADF85C8B01EB437DD53D97F9B7D05761311C597340088BBB20B41",
            "7C06C87A0F4483C60F81D57D405020A02518D89CB917346F7B984B08447D7A59",
        ])
    }

    @Test func thePublishedTimestampIsRFC3339UTCOfTheAppleEpochSeconds() throws {
        // 800000000 s after 2001-01-01T00:00:00Z is 2026-05-09T06:13:20Z (Python's datetime).
        let (outcome, _) = base.run(VASSessionTests.phoneWithCoffee())
        let entry = try #require(outcome.vas?.entries[1])
        #expect(entry.timestampRaw == 800_000_000)
        #expect(entry.timestamp == "2026-05-09T06:13:20.000Z")
    }

    @Test func eachTapSendsFreshNonces() throws {
        var seen: Set<[UInt8]> = []
        for _ in 0..<4 {
            let (_, card) = base.run(VASSessionTests.phoneWithCoffee())
            for command in base.getVASData(card) {
                seen.insert(try #require(try VASPhone.dataObjects(of: command).first(0x9F28)?.value))
            }
        }
        // 8 requests of 4 random bytes each: a repeat has odds of about 2^-27.
        #expect(seen.count == 8)
    }

    @Test func aURLOnlySuccessIsNotAPassSoStopOnFirstPassStillRunsTheAIDs() throws {
        var settings = VASSessionTests.settings()
        settings.stopOnFirstPass = true
        settings.merchants = [
            try VASMerchant(
                passTypeIdentifier: PassTypeIdentifier("pass.com.example.join"), url: "https://example.com/join",
                filter: nil, keys: [], keyPaths: [])
        ]
        let (outcome, _) = base.run(VASSessionTests.phoneWithCoffee(), settings, aids: [VASSessionTests.mastercard])
        #expect(outcome.vas?.entries.first?.status == .success)
        #expect(outcome.vas?.readAPass == false)
        #expect(outcome.aid.selected == VASSessionTests.mastercard)
    }

    @Test func anAppleAnswerBreakingTheRulesStillReportsItsWalletAndCapabilities() throws {
        let card = ScriptedCard()
        // ApplePay with VAS version 0200 (§2.3 refuses anything but 0100).
        card.applications[VASApplication.aid.hex] = try [UInt8](hex: "6F1650084170706C655061799F210202009F23040000003E")
        let outcome = SessionEngine().run(SessionPlan(aids: [], vas: VASSessionTests.settings().plan()), on: card)
        let vas = try #require(outcome.vas)
        #expect(vas.offered && vas.wallet == "ApplePay" && vas.version == "0200" && vas.capabilities?.hex == "0000003E")
        #expect(vas.problem?.contains("0200") == true, "\(vas.problem ?? "nil")")
        #expect(card.received.filter { $0.first == 0x80 }.isEmpty)
    }

    @Test func anEntryHasExactlyTheDocumentedFields() throws {
        let (outcome, _) = base.run(VASSessionTests.phoneWithCoffee())
        let entries = try #require(outcome.vas?.entries)
        for entry in entries {
            let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(entry)) as? [String: Any])
            #expect(Set(object.keys) == [
                "pass_type_id", "status", "sw", "key_id", "timestamp", "timestamp_raw", "message", "message_hex",
                "variant", "problem", "withheld",
            ])
        }
        let vas = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(outcome.vas)) as? [String: Any])
        #expect(Set(vas.keys) == ["offered", "wallet", "version", "capabilities", "mode", "problem", "entries"])
    }
}
