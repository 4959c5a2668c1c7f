import ISO7816
import NDEF

extension SessionEngine {
    /// Reads a Type 4 tag's NDEF message (``Type4TagReader``) into `outcome.ndef`. Run only when
    /// nothing else of the tap succeeded (``SessionOutcome/foundSomething``), so it adds no APDU to
    /// a tap that did. A tag without NDEF gives a `problem`; a failed exchange or the end of the
    /// budget is thrown, the `problem` saying so.
    func runNDEF(on channel: any CardChannel, within budget: SessionBudget, into outcome: inout SessionOutcome) throws(CardTransportError) {
        var reader = Type4TagReader(
            maximumAnswerBytes: channel.capacity.maxAnswerBytes, maximumMessageBytes: NDEFLimits.standard.maxMessageBytes
        ) { (command: CommandAPDU) throws(CardTransportError) -> ResponseAPDU in
            try send(command, on: channel, within: budget)
        }
        do {
            let message = try reader.readMessage()
            outcome.ndef = NDEFReadResult(tagType: .type4, message: message)
        } catch {
            switch error {
            case .problem(let problem):
                outcome.ndef = NDEFReadResult(tagType: .type4, problem: problem)
            case .transport(let failure):
                outcome.ndef = NDEFReadResult(
                    tagType: .type4, problem: "the tap ended before the NDEF message was read (\(failure.code.rawValue): see the read.result error)")
                throw failure
            }
        }
    }

    /// Reads a Type 2 tag's NDEF message over its page memory (``Type2TagReader``), within the
    /// tap's `budget` (`[session] budget_ms`): no APDU is sent. A tag without NDEF, a broken
    /// capability container or TLV, and a failed read each give a `problem`.
    public func readType2(_ memory: any TagMemory, budget: Duration?) -> NDEFReadResult {
        var reader = Type2TagReader(memory: memory, budget: SessionBudget(limit: budget, clock: clock))
        do {
            return NDEFReadResult(tagType: .type2, message: try reader.readMessage())
        } catch {
            switch error {
            case .problem(let problem):
                return NDEFReadResult(tagType: .type2, problem: problem)
            case .transport(let failure):
                return NDEFReadResult(tagType: .type2, problem: "the tag could not be read: \(failure.code.rawValue): \(failure.message)")
            }
        }
    }
}
