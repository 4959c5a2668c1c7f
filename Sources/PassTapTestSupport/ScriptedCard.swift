import ISO7816
import PassTapCore

/// The card double of the unit tests and the session fuzz targets: a ``CardChannel`` that
/// answers from a script as a card would, and records every command it was sent.
///
/// A command gets the first of these answers that applies:
/// 1. the exchange numbered ``failOnExchange`` throws its transport error instead;
/// 2. a command sent again right after itself with only its last byte changed (a SELECT or GET
///    VAS DATA re-sent with the Le of a `6Cxx`, a second GET RESPONSE) takes the next of
///    ``followUps``, if there is one;
/// 3. SELECT by name (`00 A4 04`): its whole answer from ``selectAnswers``, else its FCI from
///    ``applications`` with `90 00` (with `61xx` first for the ``chainedAIDs``); a name in
///    neither takes the next of ``followUps``, else `6A82`;
/// 4. GET RESPONSE (`00 C0`) after a `61xx`: the FCI held back, with `90 00`;
/// 5. ``onCommand``'s answer, when it gives one;
/// 6. the next of ``followUps``;
/// 7. `6A82` (file not found) to any other SELECT, `6D00` (instruction not supported) to the rest.
///
/// A VAS phone is this card with a ``VASPhone`` installed on it.
public final class ScriptedCard: CardChannel {
    /// What one exchange can carry (a PN532's 263-byte answers, say).
    public var capacity = ChannelCapacity.extendedAPDU
    /// FCIs by AID (hex): a SELECT of the AID is answered with its FCI and `90 00`.
    public var applications: [String: [UInt8]] = [:]
    /// AIDs (hex) of ``applications`` whose SELECT answers `61xx` first; GET RESPONSE then gives the FCI.
    public var chainedAIDs: Set<String> = []
    /// Whole answers (data and status word, or any bytes at all) to SELECT by AID (hex), sent as
    /// they are; they win over ``applications``.
    public var selectAnswers: [String: [UInt8]] = [:]
    /// Answers a command that the SELECT tables do not; `nil` passes it on.
    public var onCommand: (([UInt8]) -> [UInt8]?)? = nil
    /// Whole answers, in order, to a command sent again with a new last byte, to a SELECT of an
    /// unknown name, and to whatever nothing else answers.
    public var followUps: [[UInt8]] = []
    /// The exchange (1-based) that throws this transport error instead of answering.
    public var failOnExchange: (number: Int, error: CardTransportError)? = nil
    /// Runs before every answer (a test clock that each exchange moves on, say).
    public var onExchange: (() -> Void)? = nil

    /// Every command received, in order.
    public private(set) var received: [[UInt8]] = []
    /// Every answer sent, in order.
    public private(set) var answers: [[UInt8]] = []
    /// The FCI a `61xx` held back for GET RESPONSE.
    private var pending: [UInt8]?

    public init() {}

    public func transmit(_ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
        let previous = received.last
        received.append(command)
        onExchange?()
        if let failure = failOnExchange, failure.number == received.count { throw failure.error }
        let answer = self.answer(to: command, previous: previous)
        answers.append(answer)
        return answer
    }

    private func answer(to command: [UInt8], previous: [UInt8]?) -> [UInt8] {
        if let previous, command.count == previous.count, command.dropLast() == previous.dropLast(), !followUps.isEmpty {
            return followUps.removeFirst()
        }
        if command.count >= 5, command[0] == 0x00, command[1] == 0xA4, command[2] == 0x04 {
            let aid = Array(command.dropFirst(5).prefix(Int(command[4]))).hexString
            if let whole = selectAnswers[aid] { return whole }
            if let fci = applications[aid] {
                guard chainedAIDs.contains(aid) else { return fci + [0x90, 0x00] }
                pending = fci
                return [0x61, UInt8(fci.count)]
            }
            return followUps.isEmpty ? [0x6A, 0x82] : followUps.removeFirst()
        }
        if command.count >= 2, command[0] == 0x00, command[1] == 0xC0, let held = pending {
            pending = nil
            return held + [0x90, 0x00]
        }
        if let answer = onCommand?(command) { return answer }
        if !followUps.isEmpty { return followUps.removeFirst() }
        return command.count >= 2 && command[1] == 0xA4 ? [0x6A, 0x82] : [0x6D, 0x00]
    }
}
