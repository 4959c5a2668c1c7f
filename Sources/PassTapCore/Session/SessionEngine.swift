public import ISO7816

/// Runs one tap's session over a card channel: SELECT by AID in the configured order, first
/// success wins (as Core NFC does), every attempt recorded with its status word.
///
/// The engine is synchronous and pure apart from the channel: backends call it on the reader's own
/// thread, and unit tests drive it with an in-process fake card.
public struct SessionEngine: Sendable {
    /// The chaining and caps applied to every command of the session.
    public var transmitter: APDUTransmitter

    /// Creates an engine with the given transmit caps.
    public init(transmitter: APDUTransmitter = APDUTransmitter()) {
        self.transmitter = transmitter
    }

    /// Runs `plan` against the card behind `channel`.
    ///
    /// A transport failure (card pulled, reader gone, hostile chaining) ends the session: the
    /// attempts made so far are kept and the failure is the outcome's `error`.
    public func run(_ plan: SessionPlan, on channel: any CardChannel) -> SessionOutcome {
        var attempts: [AIDSessionResult.Attempt] = []
        for aid in plan.aids {
            let response: ResponseAPDU
            do {
                response = try send(.select(aid: aid), on: channel)
            } catch {
                attempts.append(.init(aid: aid.hex, sw: nil))
                return SessionOutcome(
                    aid: AIDSessionResult(selected: nil, fci: nil, attempts: attempts),
                    error: ReadError(error))
            }
            attempts.append(.init(aid: aid.hex, sw: response.statusWord.hex))
            if response.statusWord.isSuccess {
                return SessionOutcome(
                    aid: AIDSessionResult(selected: aid.hex, fci: FCIRecord(bytes: response.data), attempts: attempts),
                    error: nil)
            }
        }
        return SessionOutcome(aid: AIDSessionResult(selected: nil, fci: nil, attempts: attempts), error: nil)
    }

    /// Sends one command with chaining, turning every failure into a ``CardTransportError``.
    public func send(_ command: CommandAPDU, on channel: any CardChannel) throws(CardTransportError) -> ResponseAPDU {
        do {
            return try transmitter.transmit(command) { (bytes: [UInt8]) throws(CardTransportError) -> [UInt8] in
                try channel.transmit(bytes)
            }
        } catch {
            throw CardTransportError(error)
        }
    }
}
