import Foundation
public import ISO7816
public import VAS
import Wallets

/// Runs one tap's session over a card channel: the wallet exchanges (Apple VAS, or Google Smart
/// Tap for an Android phone; before or after the AID list, as configured), the PPSE lookup when
/// enabled, and SELECT by AID in the configured order, first success wins (as Core NFC does),
/// every attempt recorded with its status word; then, when none of that succeeded, the Type 4
/// NDEF read.
///
/// The engine is synchronous and pure apart from the channel, the clocks and the replay cache:
/// backends call it on the reader's own thread, and unit tests drive it with an in-process fake
/// card. It never sends READ RECORD or anything else that reads card numbers.
public struct SessionEngine: Sendable {
    /// The chaining and caps applied to every command of the session.
    public var transmitter: APDUTransmitter
    /// The clock: its wall time for the VAS freshness window and the replay cache, its monotonic
    /// time for the tap's time budget.
    public var clock: DaemonClock
    /// The one-time phone keys already seen, shared by every reader's sessions (a read replayed on
    /// another reader is a replay too).
    public var replays: VASReplayCache

    /// Creates an engine with the given transmit caps, clocks and replay cache.
    public init(
        transmitter: APDUTransmitter = APDUTransmitter(), clock: DaemonClock = .system,
        replays: VASReplayCache = VASReplayCache()
    ) {
        self.transmitter = transmitter
        self.clock = clock
        self.replays = replays
    }

    /// Runs `plan` against the card behind `channel`.
    ///
    /// Each step fills the one outcome; a transport failure (card pulled, reader gone, hostile
    /// chaining) or the end of the plan's time budget ends the session there, what was learnt so
    /// far is kept, and the failure is the outcome's `error`.
    public func run(_ plan: SessionPlan, on channel: any CardChannel) -> SessionOutcome {
        var outcome = SessionOutcome()
        let budget = SessionBudget(limit: plan.budget, clock: clock)
        do {
            if plan.walletOrder == .beforeAIDs {
                try runWallets(plan, on: channel, within: budget, into: &outcome)
                if plan.stopsOnFirstPass, outcome.readAPass { return outcome }
            }
            try runAIDs(plan, on: channel, within: budget, into: &outcome.aid)
            if plan.walletOrder == .afterAIDs {
                try runWallets(plan, on: channel, within: budget, into: &outcome)
            }
            if plan.ndef, !outcome.foundSomething {
                try runNDEF(on: channel, within: budget, into: &outcome)
            }
        } catch {
            outcome.error = error
        }
        return outcome
    }

    /// PPSE (when planned), then SELECT by AID: the directory's applications by priority (at most
    /// ``PaymentDirectory/maximumApplications``, each once), then the configured list, each AID
    /// once. Every SELECT sent is recorded, the failed one too.
    private func runAIDs(
        _ plan: SessionPlan, on channel: any CardChannel, within budget: SessionBudget, into record: inout AIDSessionResult
    ) throws(CardTransportError) {
        var order: [AID] = []
        if plan.ppse {
            let response = try select(PaymentDirectory.aid, on: channel, within: budget, into: &record)
            let directory = response.statusWord.isSuccess ? PaymentDirectory(fci: response.data) : PaymentDirectory(offered: false, applications: [])
            record.ppse = directory
            order = directory.applications.map(\.aid)
        }
        for aid in plan.aids where !order.contains(aid) { order.append(aid) }
        for aid in order {
            let response = try select(aid, on: channel, within: budget, into: &record)
            if response.statusWord.isSuccess {
                let listed = record.ppse?.applications.contains { $0.aid == aid } == true
                let payment = listed || PaymentSchemes.contains(aid)
                record.selected = aid
                switch FCIRecord.forPublication(response.data, scope: payment ? .paymentApplication : .withoutCardData) {
                case .success(let fci): record.fci = fci
                case .failure(let omitted): record.fciOmitted = omitted.reason
                }
                return
            }
        }
    }

    /// One SELECT by name, recorded as an attempt (with no status word when the exchange failed).
    /// A SELECT the budget stops is not sent, and not recorded.
    private func select(
        _ aid: AID, on channel: any CardChannel, within budget: SessionBudget, into record: inout AIDSessionResult
    ) throws(CardTransportError) -> ResponseAPDU {
        try budget.check()
        do {
            let response = try send(.select(aid: aid), on: channel, within: budget)
            record.attempts.append(.init(aid: aid, sw: response.statusWord))
            return response
        } catch {
            record.attempts.append(.init(aid: aid, sw: nil))
            throw error
        }
    }

    /// Sends one command with chaining, turning every failure into a ``CardTransportError``.
    public func send(_ command: CommandAPDU, on channel: any CardChannel) throws(CardTransportError) -> ResponseAPDU {
        try transmitter.send(command, on: channel)
    }

    /// Sends one command with chaining, checking the budget before each raw exchange (a card that
    /// chains `61xx` answers past the budget is cut between two of them).
    func send(_ command: CommandAPDU, on channel: any CardChannel, within budget: SessionBudget) throws(CardTransportError) -> ResponseAPDU {
        do {
            return try transmitter.transmit(command) { (bytes: [UInt8]) throws(CardTransportError) -> [UInt8] in
                try budget.check()
                return try channel.exchange(bytes)
            }
        } catch {
            throw CardTransportError(error)
        }
    }
}
