import Foundation
import ISO7816
import PassTapCore
import PassTapTestSupport
import Testing
import VAS
import Wallets
import VASSettings

/// The VAS part of the session engine against an in-process phone: request order and bytes,
/// per-merchant statuses, decryption, freshness, order with the AID list, and lost cards.
@Suite(.timeLimit(.minutes(1))) struct VASSessionTests {
    static let loyaltyKey = MerchantKey.generate()
    static let coffeeKey = MerchantKey.generate()
    static let otherKey = MerchantKey.generate()
    static let mastercard = try! AID(hex: "A0000000041010")
    static let fci: [UInt8] = [0x6F, 0x07, 0x84, 0x05, 0xA0, 0x00, 0x00, 0x00, 0x04]

    /// Two merchants: loyalty first, coffee second.
    static func settings(freshness: Int = 0) -> Configuration.VAS {
        var vas = Configuration.VAS()
        vas.enabled = true
        vas.freshnessSeconds = freshness
        vas.merchants = [.test("pass.com.example.loyalty", keys: [loyaltyKey]), .test("pass.com.example.coffee", keys: [coffeeKey])]
        return vas
    }

    /// A phone holding only the coffee pass.
    static func phoneWithCoffee(_ message: String = "member 0042") -> VASPhone {
        var phone = VASPhone()
        phone.passes = [.init(passTypeID: "pass.com.example.coffee", merchantKey: coffeeKey, message: message)]
        return phone
    }

    func engine(now phone: VASPhone, skew: TimeInterval = 0) -> SessionEngine {
        let date = phone.date.addingTimeInterval(skew)
        return SessionEngine(clock: DaemonClock(date: { date }))
    }

    func run(_ phone: VASPhone, _ settings: Configuration.VAS = settings(), aids: [AID] = [], requested: Set<String>? = nil, skew: TimeInterval = 0) -> (SessionOutcome, ScriptedCard) {
        let card = ScriptedCard()
        card.applications[Self.mastercard.hex] = Self.fci
        phone.install(on: card)
        let plan = SessionPlan(aids: aids, vas: settings.plan(requested: requested))
        return (engine(now: phone, skew: skew).run(plan, on: card), card)
    }

    /// The GET VAS DATA commands the card received.
    func getVASData(_ card: ScriptedCard) -> [[UInt8]] { card.received.filter { $0.first == 0x80 } }

    @Test func twoMerchantsPhoneHasTheSecondGivesDataNotFoundThenTheDecryptedPass() throws {
        let phone = Self.phoneWithCoffee()
        let (outcome, card) = run(phone)
        let vas = try #require(outcome.vas)
        #expect(outcome.error == nil)
        #expect(vas.offered && vas.wallet == "ApplePay" && vas.version == "0100" && vas.mode == .vasOrPayment)
        #expect(vas.capabilities?.hex == "0000003E")
        #expect(vas.capabilities?.bits == ["encrypted", "vas_may_be_skipped", "vas_may_be_performed", "payment_may_be_skipped", "payment_may_be_performed"])
        #expect(vas.entries.map(\.passTypeID) == ["pass.com.example.loyalty", "pass.com.example.coffee"])
        #expect(vas.entries[0].status == .dataNotFound && vas.entries[0].sw == "6A83" && vas.entries[0].message == nil)
        let pass = vas.entries[1]
        #expect(pass.status == .success && pass.sw == "9000")
        #expect(pass.message == "member 0042")
        #expect(pass.messageHex == Array("member 0042".utf8).hexString)
        #expect(pass.keyID == Self.coffeeKey.keyID)
        #expect(pass.timestampRaw == phone.timestamp)
        #expect(pass.timestamp == RFC3339.string(from: phone.date))
        #expect(pass.variant == .a)
        // One SELECT, then GET VAS DATA in configured order, "more" bit on all but the last, P2 01.
        let requests = getVASData(card)
        #expect(card.received.first == VASApplication.selectCommand.bytes)
        #expect(requests.count == 2)
        #expect(requests.map { $0[3] } == [0x01, 0x01])
        let capabilities = try requests.map { request in
            try #require(try VASPhone.dataObjects(of: request).first(0x9F26)?.value)
        }
        #expect(capabilities == [[0x00, 0x80, 0x00, 0x80], [0x00, 0x80, 0x00, 0x00]])
        let nonces = try requests.map { try #require(try VASPhone.dataObjects(of: $0).first(0x9F28)?.value) }
        #expect(nonces.allSatisfy { $0.count == 4 })
    }

    @Test func modeBitsFollowTheConfiguredMode() throws {
        for mode in PassMode.allCases {
            var settings = Self.settings()
            settings.mode = mode
            let (outcome, card) = run(Self.phoneWithCoffee(), settings)
            #expect(outcome.vas?.mode == mode)
            let last = try #require(getVASData(card).last)
            let value = try #require(try VASPhone.dataObjects(of: last).first(0x9F26)?.value)
            #expect(value[3] == mode.bits)
        }
    }

    @Test func variantBIsDecryptedToo() throws {
        var phone = Self.phoneWithCoffee()
        phone.variant = .b
        let entry = try #require(run(phone).0.vas?.entries[1])
        #expect(entry.status == .success && entry.variant == .b && entry.message == "member 0042")
    }

    @Test func aCryptogramForAnotherKeyIsNoMatchingKeyShowingTheKeyID() throws {
        var phone = VASPhone()
        phone.passes = [.init(passTypeID: "pass.com.example.coffee", merchantKey: Self.otherKey, message: "x")]
        let entry = try #require(run(phone).0.vas?.entries[1])
        #expect(entry.status == .noMatchingKey)
        #expect(entry.keyID == Self.otherKey.keyID)
        #expect(entry.message == nil && entry.messageHex == nil && entry.timestamp == nil)
        #expect(entry.problem?.contains(Self.otherKey.keyID.hex) == true)
    }

    @Test func rotationPicksTheKeyByItsID() throws {
        var settings = Self.settings()
        settings.merchants[1] = .test("pass.com.example.coffee", keys: [Self.otherKey, Self.coffeeKey])
        let entry = try #require(run(Self.phoneWithCoffee(), settings).0.vas?.entries[1])
        #expect(entry.status == .success && entry.keyID == Self.coffeeKey.keyID)
    }

    @Test func aStalePassIsWithheldUnlessStaleReadsArePublished() throws {
        let phone = Self.phoneWithCoffee()
        let stale = try #require(run(phone, Self.settings(freshness: 60), skew: 61).0.vas?.entries[1])
        #expect(stale.status == .stale)
        #expect(stale.message == nil && stale.messageHex == nil && stale.timestampRaw == nil)
        #expect(stale.keyID == Self.coffeeKey.keyID)
        #expect(stale.problem?.contains("61 s old") == true)

        let fresh = try #require(run(phone, Self.settings(freshness: 60), skew: 59).0.vas?.entries[1])
        #expect(fresh.status == .success)
        let future = try #require(run(phone, Self.settings(freshness: 60), skew: -120).0.vas?.entries[1])
        #expect(future.status == .stale && future.problem?.contains("in the future") == true)

        var publishing = Self.settings(freshness: 60)
        publishing.publishStale = true
        let published = try #require(run(phone, publishing, skew: 3600).0.vas?.entries[1])
        #expect(published.status == .stale && published.message == "member 0042" && published.timestampRaw == phone.timestamp)

        let off = try #require(run(phone, Self.settings(freshness: 0), skew: 86_400 * 365).0.vas?.entries[1])
        #expect(off.status == .success)
    }

    @Test func aPassNeedingAuthenticationIsDataNotActivated() throws {
        var phone = Self.phoneWithCoffee()
        phone.passes[0].needsAuthentication = true
        let entry = try #require(run(phone).0.vas?.entries[1])
        #expect(entry.status == .dataNotActivated && entry.sw == "6287" && entry.keyID == nil)
    }

    @Test(arguments: [
        ("6984", VASReadStatus.userIntervention), ("6A80", .incorrectData), ("6700", .wrongLength),
        ("6B00", .wrongParameters), ("6340", .unsupportedVersion), ("6F00", .unexpectedStatus),
    ])
    func everyStatusWordMapsToItsStatus(sw: String, status: VASReadStatus) throws {
        var phone = Self.phoneWithCoffee()
        phone.overrideAnswer = try [UInt8](hex: sw)
        let entry = try #require(run(phone).0.vas?.entries[1])
        #expect(entry.status == status && entry.sw?.hex == sw)
        if status == .unexpectedStatus { #expect(entry.problem?.contains("6F00") == true) }
    }

    @Test(arguments: [
        ("70209F2700", "truncated"), ("70039F2A00", "without a 9F27"),
        ("70" + "81" + "86" + "9F27" + "8182" + String(repeating: "AB", count: 130), "cryptogram of 130 bytes; it must be 56...120"),
        ("9F2700", "expected one 70 template"),
    ])
    func malformedAnswersAreMalformedResponseWithAReason(body: String, reason: String) throws {
        var phone = Self.phoneWithCoffee()
        phone.overrideAnswer = try [UInt8](hex: body + "9000")
        let (outcome, _) = run(phone)
        let entry = try #require(outcome.vas?.entries[1])
        #expect(entry.status == .malformedResponse)
        #expect(entry.problem?.contains(reason) == true, "\(entry.problem ?? "nil")")
        #expect(outcome.error == nil)
    }

    @Test func merchantsNotAskedAreNotRequestedAndGetNoCommand() throws {
        let (outcome, card) = run(Self.phoneWithCoffee(), requested: ["pass.com.example.coffee"])
        let vas = try #require(outcome.vas)
        #expect(vas.entries.map(\.status) == [.notRequested, .success])
        #expect(getVASData(card).count == 1)
        let only = try #require(getVASData(card).first)
        let value = try #require(try VASPhone.dataObjects(of: only).first(0x9F26)?.value)
        #expect(value[3] & 0x80 == 0)  // the only request is the last
    }

    @Test func withoutStopOnFirstPassTheAIDListRunsAfterVASInTheSameTap() throws {
        let (outcome, card) = run(Self.phoneWithCoffee(), aids: [Self.mastercard])
        #expect(outcome.vas?.readAPass == true)
        #expect(outcome.aid.selected == Self.mastercard)
        #expect(card.received.last == CommandAPDU.select(aid: Self.mastercard).bytes)
    }

    @Test func stopOnFirstPassSkipsTheAIDListOnlyWhenAPassWasRead() throws {
        var settings = Self.settings()
        settings.stopOnFirstPass = true
        let (read, _) = run(Self.phoneWithCoffee(), settings, aids: [Self.mastercard])
        #expect(read.vas?.readAPass == true && read.aid.attempts.isEmpty && read.aid.selected == nil)
        var empty = VASPhone()
        empty.passes = []
        let (none, _) = run(empty, settings, aids: [Self.mastercard])
        #expect(none.vas?.readAPass == false && none.aid.selected == Self.mastercard)
    }

    @Test func afterAIDsRunsTheAIDListFirst() throws {
        var settings = Self.settings()
        settings.order = .afterAIDs
        let (outcome, card) = run(Self.phoneWithCoffee(), settings, aids: [Self.mastercard])
        #expect(outcome.aid.selected == Self.mastercard && outcome.vas?.readAPass == true)
        #expect(card.received.first == CommandAPDU.select(aid: Self.mastercard).bytes)
        #expect(card.received.last?.first == 0x80)
    }

    @Test func aTagWithoutTheVASAppletIsNotOfferedAndTheAIDsStillRun() throws {
        let card = ScriptedCard()
        card.applications[Self.mastercard.hex] = Self.fci
        let plan = SessionPlan(aids: [Self.mastercard], vas: Self.settings().plan())
        let outcome = SessionEngine().run(plan, on: card)
        let vas = try #require(outcome.vas)
        #expect(!vas.offered && vas.wallet == nil && vas.problem?.contains("6A82") == true)
        #expect(vas.entries.map(\.status) == [.notRequested, .notRequested])
        #expect(outcome.aid.selected == Self.mastercard && outcome.error == nil)
    }

    @Test func anotherWalletIsReportedWithItsCapabilitiesAndNoVASIsDone() throws {
        var phone = Self.phoneWithCoffee()
        phone.wallet = "AndroidPay"
        phone.capabilities = [0, 0, 0, 0x08]
        let (outcome, card) = run(phone)
        let vas = try #require(outcome.vas)
        #expect(vas.offered && vas.wallet == "AndroidPay" && vas.capabilities?.bits == ["vas_may_be_performed"])
        // The label is the card's choice: it is in `wallet`, never copied into the problem text.
        #expect(vas.problem == "this wallet (see wallet) does not do Apple VAS; only ApplePay does")
        #expect(getVASData(card).isEmpty)
    }

    @Test func aPhoneThatSaysVASMayNotBePerformedIsNotAsked() throws {
        var phone = Self.phoneWithCoffee()
        phone.capabilities = [0, 0, 0, 0x32]
        let (outcome, card) = run(phone)
        #expect(outcome.vas?.problem?.contains("may not be performed") == true)
        #expect(outcome.vas?.capabilities?.hex == "00000032")
        #expect(getVASData(card).isEmpty)
    }

    @Test func aMalformedSelectAnswerIsReportedAndTheAIDsStillRun() throws {
        let card = ScriptedCard()
        card.applications[VASApplication.aid.hex] = [0x6F, 0x05, 0x50, 0x08]
        card.applications[Self.mastercard.hex] = Self.fci
        let outcome = SessionEngine().run(SessionPlan(aids: [Self.mastercard], vas: Self.settings().plan()), on: card)
        #expect(outcome.vas?.offered == true && outcome.vas?.problem != nil)
        #expect(outcome.aid.selected == Self.mastercard)
    }

    @Test func aCardPulledMidVASKeepsTheEntriesSoFarAndSkipsTheAIDs() throws {
        let card = ScriptedCard()
        Self.phoneWithCoffee().install(on: card)
        card.applications[Self.mastercard.hex] = Self.fci
        card.failOnExchange = (3, CardTransportError(.cardRemoved, "the card left the field"))
        let outcome = SessionEngine().run(
            SessionPlan(aids: [Self.mastercard], vas: Self.settings().plan()), on: card)
        #expect(outcome.error?.code == .cardRemoved)
        #expect(outcome.vas?.entries.map(\.status) == [.dataNotFound, .notRequested])
        // The coffee merchant was asked (exchange 3) but never answered: it says so.
        #expect(outcome.vas?.entries[1].problem?.contains("tap ended without a usable answer (card_removed") == true)
        #expect(outcome.vas?.entries[0].problem == nil)
        #expect(outcome.aid.attempts.isEmpty)
    }

    @Test func aURLOnlyMerchantSendsP2ZeroWithoutAPassHash() throws {
        var settings = Self.settings()
        settings.merchants = [
            try VASMerchant(
                passTypeIdentifier: PassTypeIdentifier("pass.com.example.join"), url: "https://example.com/join", filter: nil,
                keys: [], keyPaths: [])
        ]
        let (outcome, card) = run(Self.phoneWithCoffee(), settings)
        #expect(outcome.vas?.entries.first?.status == .success)
        let request = try #require(getVASData(card).first)
        #expect(request[3] == 0x00)
        let nodes = try VASPhone.dataObjects(of: request)
        #expect(nodes.first(0x9F25) == nil)
        #expect(nodes.first(0x9F29)?.value == Array("https://example.com/join".utf8))
    }

    @Test func theResultEncodesEveryFieldWithNullsForAbsentPayloads() throws {
        let (outcome, _) = run(Self.phoneWithCoffee())
        let json = try #require(String(data: try JSONEncoder().encode(outcome.vas), encoding: .utf8))
        for key in ["\"offered\":true", "\"wallet\":\"ApplePay\"", "\"version\":\"0100\"", "\"mode\":\"vas_or_payment\"",
                    "\"status\":\"data_not_found\"", "\"message\":null", "\"timestamp_raw\":null", "\"pass_type_id\":\"pass.com.example.coffee\"",
                    "\"status\":\"success\"", "\"message\":\"member 0042\""] {
            #expect(json.contains(key), "\(key) in \(json)")
        }
        let decoded = try JSONDecoder().decode(VASSessionResult.self, from: Data(json.utf8))
        #expect(decoded == outcome.vas)
    }
}
