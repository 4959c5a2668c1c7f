import Foundation
import ISO7816
import PassTapCore
import PassTapTestSupport
import Testing
import VAS
import VASSettings

/// `[session] budget_ms`: a session over its budget ends between two exchanges with
/// `session_timeout`, keeping what it learnt. Time is a test clock that each exchange moves on.
@Suite(.timeLimit(.minutes(1))) struct SessionBudgetTests {
    static let aids = (0..<10).map { try! AID(bytes: [0xF0, 0, 0, 0, UInt8($0)]) }

    /// A card that takes `perExchange` to answer anything, on `clock`.
    static func slowCard(_ clock: TestClock, perExchange: Duration) -> ScriptedCard {
        let card = ScriptedCard()
        card.onExchange = { clock.advance(by: perExchange) }
        return card
    }

    @Test func aSessionOverItsBudgetEndsBeforeTheNextExchange() throws {
        let clock = TestClock()
        let card = Self.slowCard(clock, perExchange: .milliseconds(300))
        let engine = SessionEngine(clock: DaemonClock(now: { clock.now }))
        let outcome = engine.run(SessionPlan(aids: Self.aids, budget: .milliseconds(1000)), on: card)
        // Exchanges start at 0, 300, 600 and 900 ms; at 1200 ms the budget is spent.
        #expect(card.received.count == 4)
        #expect(outcome.aid.attempts == Self.aids.prefix(4).map { .init(aid: $0, sw: "6A82") })
        let error = try #require(outcome.error)
        #expect(error.code == .sessionTimeout)
        #expect(error.message == "the session took 1200 ms, over its 1000 ms budget ([session] budget_ms); it ended before the next exchange")
    }

    @Test func aSessionWithinItsBudgetRunsToItsEnd() {
        let clock = TestClock()
        let card = Self.slowCard(clock, perExchange: .milliseconds(100))
        let outcome = SessionEngine(clock: DaemonClock(now: { clock.now })).run(SessionPlan(aids: Self.aids, budget: .milliseconds(1000)), on: card)
        #expect(outcome.error == nil)
        #expect(card.received.count == 10)
    }

    @Test func withoutABudgetASlowCardIsFollowedToTheEnd() {
        let clock = TestClock()
        let card = Self.slowCard(clock, perExchange: .seconds(5))
        let outcome = SessionEngine(clock: DaemonClock(now: { clock.now })).run(SessionPlan(aids: Self.aids), on: card)
        #expect(outcome.error == nil && card.received.count == 10)
    }

    @Test func chainedAnswersAreCutBetweenTwoRoundTrips() throws {
        let clock = TestClock()
        let card = Self.slowCard(clock, perExchange: .milliseconds(600))
        card.applications[Self.aids[0].hex] = [0x6F, 0x00]
        card.chainedAIDs = [Self.aids[0].hex]
        let outcome = SessionEngine(clock: DaemonClock(now: { clock.now })).run(SessionPlan(aids: Self.aids, budget: .milliseconds(500)), on: card)
        // The SELECT went out at 0 ms and was answered 61xx at 600 ms: its GET RESPONSE is not sent.
        #expect(card.received.count == 1)
        #expect(outcome.error?.code == .sessionTimeout)
        #expect(outcome.aid.attempts == [.init(aid: Self.aids[0], sw: nil)])
    }

    @Test func theBudgetCutsTheVASExchangeBetweenMerchantsAndSkipsTheAIDList() throws {
        let clock = TestClock()
        let card = Self.slowCard(clock, perExchange: .milliseconds(400))
        let phone = VASSessionTests.phoneWithCoffee()
        phone.install(on: card)
        let settings = VASSessionTests.settings()
        let date = phone.date
        let engine = SessionEngine(clock: DaemonClock(date: { date }, now: { clock.now }))
        let plan = SessionPlan(aids: Self.aids, vas: settings.plan(), budget: .milliseconds(700))
        let outcome = engine.run(plan, on: card)
        // SELECT OSE.VAS.01 at 0 ms, the loyalty GET VAS DATA at 400 ms; at 800 ms the budget is spent.
        #expect(card.received.count == 2)
        #expect(outcome.error?.code == .sessionTimeout)
        let entries = try #require(outcome.vas?.entries)
        #expect(entries.map(\.status) == [.dataNotFound, .notRequested])
        // The coffee request was never sent: nothing says it was asked.
        #expect(entries[1].problem == nil)
        #expect(outcome.aid.attempts.isEmpty)
    }
}
