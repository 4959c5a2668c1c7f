import ISO7816
import PassTapTestSupport
import VAS

extension SessionFuzzing {
    /// One tap's phone: whole answers to SELECT by AID (``ScriptedCard/selectAnswers``), one
    /// answer to every GET VAS DATA (`80 CA`), the fuzzer's other chunks as the card's follow-ups
    /// (GET RESPONSE after `61xx`, the command re-sent with the Le of a `6Cxx`). Each exchange
    /// moves ``clock`` on 1 ms.
    final class Phone {
        let card = ScriptedCard()
        let clock = TestClock()
        /// The whole answer to every GET VAS DATA.
        var vasData: [UInt8] = [0x6A, 0x83]

        init() {
            let clock = clock
            card.onExchange = { clock.advance(by: .milliseconds(1)) }
            card.onCommand = { [unowned self] command in
                command.count >= 2 && command[0] == 0x80 && command[1] == 0xCA ? self.vasData : nil
            }
        }

        /// The whole answer to SELECT `OSE.VAS.01`; `nil` answers `6A82`.
        var vasSelect: [UInt8]? {
            get { card.selectAnswers[VASApplication.aid.hex] }
            set { card.selectAnswers[VASApplication.aid.hex] = newValue }
        }
    }
}
