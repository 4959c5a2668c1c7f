import ISO7816
import SmartTap
import VAS

extension SessionEngine {
    /// The wallet exchanges of a tap: one SELECT `OSE.VAS.01` whose answer tells the phones apart
    /// by its wallet label (tag `50`). Apple (`ApplePay`) goes on to VAS as before; an Android
    /// phone (`AndroidPay`) goes on to Smart Tap when it is planned. With VAS planned, its record
    /// says what the applet answered whatever the wallet (another wallet's `vas.problem` says it
    /// does not do Apple VAS).
    ///
    /// Fills `outcome.vas` (when VAS is planned) and `outcome.smartTap` (only for an Android phone
    /// when Smart Tap is planned). Only a lost card, a failed transport or the end of the budget
    /// throws.
    func runWallets(
        _ plan: SessionPlan, on channel: any CardChannel, within budget: SessionBudget, into outcome: inout SessionOutcome
    ) throws(CardTransportError) {
        var answer: ResponseAPDU?
        let selectOSE = { () throws(CardTransportError) -> ResponseAPDU in
            try budget.check()
            let response = try send(VASApplication.selectCommand, on: channel, within: budget)
            answer = response
            return response
        }
        if let vas = plan.vas {
            try runVAS(vas, on: channel, within: budget, into: &outcome, selectOSE: selectOSE)
        } else if plan.smartTap != nil {
            _ = try selectOSE()
        }
        guard let smartTap = plan.smartTap, let answer, answer.statusWord.isSuccess,
            VASSelectResponse.reported(in: answer.data).wallet == .androidPay
        else { return }
        try runSmartTap(smartTap, oseAnswer: answer.data, on: channel, within: budget, into: &outcome)
    }

    /// Google Smart Tap (docs/smarttap.md) after an `AndroidPay` answer to SELECT `OSE.VAS.01`:
    /// the Smart Tap reader sends its commands through ``send(_:on:within:)``, so chaining, the
    /// transmit caps and the tap's budget apply to each.
    ///
    /// Fills `outcome.smartTap`; a transport failure or the end of the budget leaves a record
    /// without status that points at the `read.result`'s `error`, and throws.
    private func runSmartTap(
        _ plan: SmartTapPlan, oseAnswer: [UInt8], on channel: any CardChannel, within budget: SessionBudget,
        into outcome: inout SessionOutcome
    ) throws(CardTransportError) {
        let reader = SmartTapReader(collector: plan.collector)
        do {
            let result = try reader.run(oseAnswer: oseAnswer, mode: plan.smartTapMode) { (command: CommandAPDU) throws(CardTransportError) -> ResponseAPDU in
                try budget.check()
                return try send(command, on: channel, within: budget)
            }
            outcome.smartTap = SmartTapSessionResult(result)
            outcome.smartTap?.collectorID = plan.collector.collectorID
        } catch {
            outcome.smartTap = SmartTapSessionResult(
                offered: false, problem: "the tap ended before Smart Tap finished (\(error.code.rawValue): see the read.result error)",
                collectorID: plan.collector.collectorID)
            throw error
        }
    }
}
