import Foundation
import ISO7816
import VAS

extension SessionEngine {
    /// The Apple VAS exchange (vas-protocol.md §2–§5): SELECT `OSE.VAS.01` (through `selectOSE`,
    /// which the Smart Tap dispatch shares), check the answer, one GET VAS DATA per asked merchant
    /// in configured order, decrypt, check freshness.
    ///
    /// Fills `outcome.vas`; what the phone answered wrongly is recorded per merchant, never
    /// thrown. Only a lost card, a failed transport or the end of the budget throws, and the
    /// merchant a failed exchange cut off says so.
    func runVAS(
        _ plan: VASPlan, on channel: any CardChannel, within budget: SessionBudget, into outcome: inout SessionOutcome,
        selectOSE: () throws(CardTransportError) -> ResponseAPDU
    ) throws(CardTransportError) {
        var result = VASSessionResult(
            offered: false, wallet: nil, version: nil, capabilities: nil, mode: plan.mode, problem: nil,
            entries: plan.merchants.map { VASEntry(passTypeID: $0.passTypeIdentifier.value, status: .notRequested) })
        defer { outcome.vas = result }
        let select = try selectOSE()
        guard select.statusWord.isSuccess else {
            result.problem = "no VAS applet: SELECT OSE.VAS.01 answered \(select.statusWord.hex)"
            return
        }
        result.offered = true
        let answer: VASSelectResponse
        do {
            answer = try VASSelectResponse(data: select.data)
        } catch {
            let reported = VASSelectResponse.reported(in: select.data)
            result.wallet = reported.wallet?.label
            result.version = reported.version.map(VASSessionResult.publishedVersion)
            result.capabilities = reported.capabilities.map(VASSessionResult.Capabilities.init)
            result.problem = "the VAS applet's answer does not follow the protocol: \(error)"
            return
        }
        result.wallet = answer.wallet.label
        result.version = answer.version.map(VASSessionResult.publishedVersion)
        result.capabilities = answer.capabilities.map(VASSessionResult.Capabilities.init)
        guard answer.wallet == .applePay else {
            // The label is in `wallet` already: the problem text never repeats what the card chose.
            result.problem = "this wallet (see wallet) does not do Apple VAS; only ApplePay does"
            return
        }
        guard answer.vasMayBePerformed else {
            result.problem = "the phone says VAS may not be performed now (9F23 bit vas_may_be_performed clear)"
            return
        }
        let asked = plan.merchants.indices.filter { plan.asks(plan.merchants[$0]) }
        let commands = GetVASDataCommand.sequence(for: asked.map { plan.merchants[$0].request }, mode: plan.mode)
        for (index, command) in zip(asked, commands) {
            try budget.check()
            let response: ResponseAPDU
            do {
                response = try send(command.apdu, on: channel, within: budget)
            } catch {
                result.entries[index].problem =
                    "asked, but the tap ended without a usable answer (\(error.code.rawValue): see the read.result error)"
                throw error
            }
            result.entries[index] = entry(for: plan.merchants[index], response, plan: plan)
        }
    }

    /// One merchant's entry from the phone's answer: status word, parse, key, decryption,
    /// freshness, replay. A decrypted cryptogram's one-time phone key goes into the replay cache;
    /// one seen before is `replayed` and its message withheld, unless it is `stale` (which says
    /// more: stale wins).
    private func entry(for merchant: VASMerchant, _ response: ResponseAPDU, plan: VASPlan) -> VASEntry {
        let answer = VASDataResponse(response, expectsCryptogram: merchant.request.isFullVAS)
        var entry = VASEntry(
            passTypeID: merchant.passTypeIdentifier.value, status: answer.status, sw: response.statusWord,
            problem: answer.problem)
        if answer.status == .unexpectedStatus {
            entry.problem = "the phone answered \(response.statusWord.hex) (\(response.statusWord.meaning))"
        }
        guard answer.status == .success, let cryptogram = answer.cryptogram, let decryptor = merchant.decryptor else {
            return entry
        }
        let decryption = decryptor.decrypt(cryptogram)
        entry.keyID = decryption.keyID
        entry.status = decryption.status
        entry.problem = decryption.problem
        guard decryption.status == .success, let payload = decryption.payload else { return entry }
        let now = clock.date
        let firstSeen = replays.record(cryptogram, at: now)
        if payload.freshness(windowSeconds: plan.freshnessSeconds, now: now) == .stale {
            let skew = Int64(now.timeIntervalSince1970.rounded()) - payload.unixTime
            entry.status = .stale
            entry.problem =
                "the pass timestamp is \(abs(skew)) s \(skew >= 0 ? "old" : "in the future"), outside the \(plan.freshnessSeconds) s freshness window (a replayed read, or the phone's clock is wrong)"
            guard plan.publishStale else { return entry }
        } else if let firstSeen {
            let ago = max(0, Int(now.timeIntervalSince(firstSeen).rounded()))
            entry.status = .replayed
            entry.problem =
                "this cryptogram's one-time phone key was already read \(ago) s ago: a replayed read (a phone makes a new key for every read), so its message is withheld"
            return entry
        }
        entry.publish(payload, variant: decryption.variant)
        return entry
    }
}
