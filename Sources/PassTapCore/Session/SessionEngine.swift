public import Foundation
public import ISO7816

/// Runs one tap's session over a card channel: the Apple VAS exchange (before or after the AID
/// list, as configured), the PPSE lookup when enabled, and SELECT by AID in the configured order,
/// first success wins (as Core NFC does), every attempt recorded with its status word.
///
/// The engine is synchronous and pure apart from the channel and the clock: backends call it on
/// the reader's own thread, and unit tests drive it with an in-process fake card. It never sends
/// READ RECORD or anything else that reads card numbers.
public struct SessionEngine: Sendable {
    /// The chaining and caps applied to every command of the session.
    public var transmitter: APDUTransmitter
    /// The host clock, for the VAS freshness window.
    public var clock: @Sendable () -> Date

    /// Creates an engine with the given transmit caps and clock.
    public init(transmitter: APDUTransmitter = APDUTransmitter(), clock: @escaping @Sendable () -> Date = { Date() }) {
        self.transmitter = transmitter
        self.clock = clock
    }

    /// Runs `plan` against the card behind `channel`.
    ///
    /// A transport failure (card pulled, reader gone, hostile chaining) ends the session: what was
    /// learnt so far is kept and the failure is the outcome's `error`.
    public func run(_ plan: SessionPlan, on channel: any CardChannel) -> SessionOutcome {
        var vas: VASSessionResult?
        if let vasPlan = plan.vas, vasPlan.settings.order == .beforeAIDs {
            let (result, error) = runVAS(vasPlan, on: channel)
            vas = result
            if let error {
                return SessionOutcome(aid: AIDSessionResult(selected: nil, fci: nil, attempts: []), vas: vas, error: error)
            }
            if vasPlan.settings.stopOnFirstPass, result.readAPass {
                return SessionOutcome(aid: AIDSessionResult(selected: nil, fci: nil, attempts: []), vas: vas, error: nil)
            }
        }
        let (aid, aidError) = runAIDs(plan, on: channel)
        if let aidError {
            return SessionOutcome(aid: aid, vas: vas, error: aidError)
        }
        if let vasPlan = plan.vas, vasPlan.settings.order == .afterAIDs {
            let (result, error) = runVAS(vasPlan, on: channel)
            return SessionOutcome(aid: aid, vas: result, error: error)
        }
        return SessionOutcome(aid: aid, vas: vas, error: nil)
    }

    /// PPSE (when planned), then SELECT by AID: the directory's applications by priority, then
    /// the configured list, each AID once.
    private func runAIDs(_ plan: SessionPlan, on channel: any CardChannel) -> (AIDSessionResult, ReadError?) {
        var attempts: [AIDSessionResult.Attempt] = []
        var directory: PaymentDirectory?
        var order: [AID] = []
        if plan.ppse {
            do {
                let response = try send(.select(aid: PaymentDirectory.aid), on: channel)
                attempts.append(.init(aid: PaymentDirectory.aid.hex, sw: response.statusWord.hex))
                if response.statusWord.isSuccess {
                    let found = PaymentDirectory(fci: response.data)
                    directory = found
                    order = found.applications.compactMap { try? AID(hex: $0.aid) }
                } else {
                    directory = PaymentDirectory(offered: false, applications: [])
                }
            } catch {
                attempts.append(.init(aid: PaymentDirectory.aid.hex, sw: nil))
                return (AIDSessionResult(selected: nil, fci: nil, attempts: attempts, ppse: directory), ReadError(error))
            }
        }
        order += plan.aids.filter { !order.contains($0) }
        for aid in order {
            let response: ResponseAPDU
            do {
                response = try send(.select(aid: aid), on: channel)
            } catch {
                attempts.append(.init(aid: aid.hex, sw: nil))
                return (AIDSessionResult(selected: nil, fci: nil, attempts: attempts, ppse: directory), ReadError(error))
            }
            attempts.append(.init(aid: aid.hex, sw: response.statusWord.hex))
            if response.statusWord.isSuccess {
                let listed = directory?.applications.contains { $0.aid == aid.hex } == true
                let payment = listed || PaymentSchemes.contains(aid)
                let fci = FCIRecord(bytes: response.data, scope: payment ? .paymentApplication : .withoutCardData)
                let record = AIDSessionResult(selected: aid.hex, fci: fci, attempts: attempts, ppse: directory)
                return (record, nil)
            }
        }
        return (AIDSessionResult(selected: nil, fci: nil, attempts: attempts, ppse: directory), nil)
    }

    /// Sends one command with chaining, turning every failure into a ``CardTransportError``.
    public func send(_ command: CommandAPDU, on channel: any CardChannel) throws(CardTransportError) -> ResponseAPDU {
        try transmitter.send(command, on: channel)
    }
}
