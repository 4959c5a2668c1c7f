import Crypto
import Foundation
import ISO7816
import PassTapCore
import PassTapTestSupport
import SmartTap
import Wallets
import Testing
import VAS
import VASSettings

/// The wallet dispatch of the session engine: one SELECT `OSE.VAS.01` whose wallet label sends
/// Apple phones to VAS (as before) and Android phones to Smart Tap; the VAS modes as Smart Tap's,
/// `order` and `stop_on_first_pass` for Smart Tap alone, and a card lost mid-Smart-Tap. (The
/// whole Smart Tap exchange against a phone is part D's unit tests and the virtual Android phone's
/// pcscd scenarios.)
@Suite(.timeLimit(.minutes(1))) struct SmartTapSessionTests {
    static let collector = SmartTapCollector(collectorID: 20_180_608, keyVersion: 1, key: P256.Signing.PrivateKey())
    static let coffeeKey = MerchantKey.generate()
    static let mastercard = try! AID(hex: "A0000000041010")
    static let fci: [UInt8] = [0x6F, 0x07, 0x84, 0x05, 0xA0, 0x00, 0x00, 0x00, 0x04]
    /// The Smart Tap applet of phones that give no nonce in their `OSE.VAS.01` answer.
    static let smartTapAID = "A000000476D0000111"

    /// `[vas]` with the coffee merchant, on or off.
    static func vas(enabled: Bool = true, order: WalletOrder = .beforeAIDs, stop: Bool = false, mode: PassMode = .vasOrPayment) -> Configuration.VAS {
        var vas = Configuration.VAS()
        vas.enabled = enabled
        vas.order = order
        vas.stopOnFirstPass = stop
        vas.mode = mode
        vas.freshnessSeconds = 0
        vas.merchants = [.test("pass.com.example.coffee", keys: [coffeeKey])]
        return vas
    }

    /// A phone of `wallet` holding the coffee pass (an Android phone answers `OSE.VAS.01` with its
    /// label and nothing for the proprietary commands of VAS).
    static func phone(_ wallet: String) -> ScriptedCard {
        var phone = VASPhone()
        phone.wallet = wallet
        phone.passes = [.init(passTypeID: "pass.com.example.coffee", merchantKey: coffeeKey, message: "member 0042")]
        let card = ScriptedCard()
        card.applications[mastercard.hex] = fci
        phone.install(on: card)
        return card
    }

    static func plan(vas: Configuration.VAS?, smartTap: Bool = true, wallets: Configuration.VAS = vas()) -> SessionPlan {
        SessionPlan(
            aids: [mastercard], vas: vas.map { $0.plan() },
            smartTap: smartTap ? smartTapPlan(wallets: wallets) : nil)
    }

    /// The collector's Smart Tap part with the mode, order and stop of `wallets` (`[vas]`).
    static func smartTapPlan(wallets: Configuration.VAS) -> SmartTapPlan {
        SmartTapPlan(collector: collector, mode: wallets.mode, order: wallets.order, stopOnFirstPass: wallets.stopOnFirstPass)
    }

    static func oseSelects(_ card: ScriptedCard) -> Int { card.received.filter { $0 == VASApplication.selectCommand.bytes }.count }

    /// Whether `command` is Smart Tap's: a proprietary `90` command, or SELECT of its applet.
    static func isSmartTap(_ command: [UInt8]) -> Bool {
        command.first == 0x90 || command == CommandAPDU.select(aid: try! AID(hex: smartTapAID)).bytes
    }

    @Test func anIPhoneGoesToVASWithOneSelectAndNoSmartTapRecord() throws {
        let card = Self.phone("ApplePay")
        let outcome = SessionEngine().run(Self.plan(vas: Self.vas()), on: card)
        #expect(outcome.smartTap == nil)
        #expect(outcome.vas?.entries.first?.status == .success && outcome.vas?.entries.first?.message == "member 0042")
        #expect(Self.oseSelects(card) == 1)
        #expect(!card.received.contains(where: Self.isSmartTap))
    }

    @Test func anAndroidPhoneGoesToSmartTapAfterTheSameOneSelect() throws {
        let card = Self.phone("AndroidPay")
        let outcome = SessionEngine().run(Self.plan(vas: Self.vas()), on: card)
        let smartTap = try #require(outcome.smartTap)
        #expect(smartTap.withheld == nil)
        // VAS says what it says of any other wallet, and sends no GET VAS DATA.
        #expect(outcome.vas?.wallet == "AndroidPay" && outcome.vas?.problem == "this wallet (see wallet) does not do Apple VAS; only ApplePay does")
        #expect(!card.received.contains { $0.first == 0x80 })
        #expect(Self.oseSelects(card) == 1)
        // The command after the one SELECT is Smart Tap's.
        #expect(card.received.first == VASApplication.selectCommand.bytes)
        #expect(card.received.count > 1 && Self.isSmartTap(card.received[1]))
        // Smart Tap came first (order before_aids), the AID list after it.
        #expect(outcome.aid.selected == Self.mastercard)
        #expect(card.received.last == CommandAPDU.select(aid: Self.mastercard).bytes)
    }

    @Test func withSmartTapOffAnAndroidPhoneIsOnlyReportedByVAS() throws {
        let card = Self.phone("AndroidPay")
        let outcome = SessionEngine().run(Self.plan(vas: Self.vas(), smartTap: false), on: card)
        #expect(outcome.smartTap == nil)
        #expect(outcome.vas?.wallet == "AndroidPay")
        #expect(!card.received.contains(where: Self.isSmartTap))
    }

    @Test func smartTapAloneSelectsOSEOnceAndGoesOnForAndroidOnly() throws {
        let android = Self.phone("AndroidPay")
        let outcome = SessionEngine().run(Self.plan(vas: nil), on: android)
        #expect(outcome.vas == nil && outcome.smartTap != nil)
        #expect(Self.oseSelects(android) == 1 && Self.isSmartTap(android.received[1]))

        let iPhone = Self.phone("ApplePay")
        let apple = SessionEngine().run(Self.plan(vas: nil), on: iPhone)
        #expect(apple.vas == nil && apple.smartTap == nil)
        #expect(Self.oseSelects(iPhone) == 1 && !iPhone.received.contains { $0.first == 0x80 || Self.isSmartTap($0) })
        #expect(apple.aid.selected == Self.mastercard)
    }

    @Test func aCardWithoutTheWalletAppletGetsNeitherWalletAndTheAIDsRun() throws {
        let card = ScriptedCard()
        card.applications[Self.mastercard.hex] = Self.fci
        let outcome = SessionEngine().run(Self.plan(vas: Self.vas()), on: card)
        #expect(outcome.smartTap == nil && outcome.vas?.offered == false)
        #expect(card.received == [VASApplication.selectCommand.bytes, CommandAPDU.select(aid: Self.mastercard).bytes])
        #expect(outcome.aid.selected == Self.mastercard)
    }

    @Test func afterAIDsRunsSmartTapAfterTheAIDList() throws {
        let card = Self.phone("AndroidPay")
        let outcome = SessionEngine().run(Self.plan(vas: nil, wallets: Self.vas(enabled: false, order: .afterAIDs)), on: card)
        #expect(card.received.first == CommandAPDU.select(aid: Self.mastercard).bytes)
        #expect(card.received[1] == VASApplication.selectCommand.bytes)
        #expect(outcome.aid.selected == Self.mastercard && outcome.smartTap != nil)
    }

    @Test func stopOnFirstPassWithoutASmartTapPassStillRunsTheAIDs() throws {
        let card = Self.phone("AndroidPay")
        let outcome = SessionEngine().run(Self.plan(vas: nil, wallets: Self.vas(enabled: false, stop: true)), on: card)
        #expect(outcome.smartTap?.readAPass == false)
        #expect(outcome.aid.selected == Self.mastercard)
    }

    @Test func aSmartTapSuccessCountsAsThePassThatStopsTheSession() {
        #expect(SessionOutcome(smartTap: SmartTapSessionResult(offered: true, status: .success)).readAPass)
        #expect(!SessionOutcome(smartTap: SmartTapSessionResult(offered: true, status: .noPass)).readAPass)
        #expect(!SessionOutcome().readAPass)
    }

    @Test(arguments: [(PassMode.vasOnly, SmartTapMode.passOnly), (.vasOrPayment, .passOverPayment), (.vasAndPayment, .passAndPayment)])
    func theVASModeIsSmartTapsPOSCapability(mode: PassMode, expected: SmartTapMode) {
        #expect(Self.smartTapPlan(wallets: Self.vas(mode: mode)).smartTapMode == expected)
    }

    @Test func aCardLostDuringSmartTapKeepsTheRecordAndReportsTheError() throws {
        let card = Self.phone("AndroidPay")
        card.failOnExchange = (2, CardTransportError(.cardRemoved, "gone"))
        let outcome = SessionEngine().run(Self.plan(vas: Self.vas()), on: card)
        #expect(outcome.error?.code == .cardRemoved)
        let smartTap = try #require(outcome.smartTap)
        #expect(smartTap.status == nil && !smartTap.readAPass)
        #expect(smartTap.problem == "the tap ended before Smart Tap finished (card_removed: see the read.result error)")
        // The AID list never ran.
        #expect(outcome.aid.attempts.isEmpty)
    }

    @Test func theBudgetCutsSmartTapBetweenTwoExchanges() throws {
        let clock = TestClock()
        let card = Self.phone("AndroidPay")
        card.onExchange = { clock.advance(by: .milliseconds(600)) }
        var plan = Self.plan(vas: nil)
        plan.budget = .milliseconds(500)
        let outcome = SessionEngine(clock: DaemonClock(now: { clock.now })).run(plan, on: card)
        #expect(outcome.error?.code == .sessionTimeout)
        #expect(card.received == [VASApplication.selectCommand.bytes])
        #expect(outcome.smartTap?.status == nil && outcome.smartTap?.problem?.contains("session_timeout") == true)
    }
}
