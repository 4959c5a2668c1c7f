import Foundation
import Testing

extension PCSCScenarioTests.HostileScenarioTests {
    /// The `read.result`'s `error.code`, or `nil` when it has none.
    static func errorCode(_ result: [String: Any]) -> String? {
        (result["error"] as? [String: Any])?["code"] as? String
    }

    /// `coffee: malformed_response (9000) — problem`, from a `read.result`'s coffee entry.
    static func entrySummary(_ result: [String: Any]) -> String {
        guard let entry = PhoneRig.entry(in: result) else { return "no VAS entry" }
        let sw = (entry["sw"] as? String).map { " (\($0))" } ?? ""
        let problem = (entry["problem"] as? String).map { ": “\($0)”" } ?? ""
        return "coffee \(entry["status"] as? String ?? "?")\(sw)\(problem)"
    }

    /// A check that the coffee entry has `status` and no message; it reports the entry.
    static func withheld(_ status: String) -> ([String: Any]) -> String {
        { result in
            #expect(PhoneRig.entry(in: result)?["status"] as? String == status, "\(result)")
            #expect(PhoneRig.entry(in: result)?["message"] is NSNull)
            return entrySummary(result)
        }
    }

    /// The hostile taps, in the order tried; each `check` states what passtapd must publish.
    static var hostileTaps: [HostileTap] {
        [
            HostileTap("wallet label of 8000 bytes (SELECT OSE.VAS.01)", "oversized_label") { result in
                let vas = result["vas"] as? [String: Any]
                let wallet = vas?["wallet"] as? String ?? ""
                #expect(wallet == String(repeating: "\\x01", count: 32) + "...[8000 bytes]", "\(wallet)")
                #expect((vas?["problem"] as? String)?.contains("does not do Apple VAS") == true, "\(vas ?? [:])")
                #expect(PhoneRig.entry(in: result)?["status"] as? String == "not_requested")
                #expect(errorCode(result) == nil, "\(result)")
                return "label cut to 32 bytes, marked `...[8000 bytes]`; VAS not done (not ApplePay); payment AID still selected"
            },
            HostileTap("FCI of 8 KiB (SELECT of the payment AID)", "oversized_fci") { result in
                let aid = result["aid"] as? [String: Any]
                #expect(aid?["selected"] as? String == "A0000000041010", "\(aid ?? [:])")
                #expect(aid?["fci"] is NSNull, "\(aid ?? [:])")
                let omitted = aid?["fci_omitted"] as? String ?? ""
                #expect(omitted.contains("over the 1024 published"), "\(omitted)")
                #expect(PhoneRig.entry(in: result)?["status"] as? String == "success")
                return "FCI not published: “\(omitted)”; the pass in the same tap read"
            },
            HostileTap("UID of 4096 bytes (FF CA answer)", "oversized_uid") { result in
                #expect(result["uid"] is NSNull, "\(result["uid"] ?? "")")
                let note = result["uid_note"] as? String ?? ""
                #expect(note.contains("4096 bytes"), "\(note)")
                #expect(PhoneRig.entry(in: result)?["status"] as? String == "success")
                return "`uid` null, `uid_note` “\(note)”; the pass read"
            },
            HostileTap("endless `61xx` (61 10 to every GET RESPONSE)", "chain_forever") { result in
                #expect(errorCode(result) == "too_many_round_trips", "\(result)")
                #expect(PhoneRig.entry(in: result)?["status"] as? String == "not_requested")
                return "session ended: `too_many_round_trips` (32 exchanges); \(entrySummary(result))"
            },
            HostileTap("`6C00` to every GET VAS DATA", "wrong_le") { result in
                #expect(PhoneRig.entry(in: result)?["status"] as? String == "unexpected_status", "\(result)")
                #expect(PhoneRig.entry(in: result)?["sw"] as? String == "6C00")
                #expect(errorCode(result) == nil, "\(result)")
                return "resent once with Le 256, then \(entrySummary(result))"
            },
            // vpcd never completes an exchange the card answered with 0 bytes: pcsc-lite's
            // SCardTransmit waits, as for a card that never answers, until the phone leaves.
            HostileTap("answer of 0 bytes (no status word)", "empty_answer", leavingAfter: "80CA") { result in
                #expect(errorCode(result) == "card_removed", "\(result)")
                #expect(PhoneRig.entry(in: result)?["status"] as? String == "not_requested")
                return "the exchange waits (vpcd never completes it) until the phone leaves; then `\(errorCode(result) ?? "no error")`; \(entrySummary(result))"
            },
            HostileTap("answer of 1 byte (half a status word)", "one_byte_answer") { result in
                #expect(errorCode(result) == "malformed_response", "\(result)")
                #expect(PhoneRig.entry(in: result)?["status"] as? String == "not_requested")
                return "session ended: `malformed_response`; \(entrySummary(result))"
            },
            HostileTap("3 s for each answer", setUp: ["delay 3000"], tearDown: ["delay 0"]) { result in
                #expect(errorCode(result) == "session_timeout", "\(result)")
                return "session ended before its next exchange: `session_timeout` (budget 2000 ms); \(entrySummary(result))"
            },
            HostileTap("truncated TLV (70 template 16 bytes short)", "truncated_tlv", check: withheld("malformed_response")),
            HostileTap("contradictory TLV (70's length ends inside its 9F27)", "contradictory_tlv", check: withheld("malformed_response")),
            HostileTap("duplicate tag (two 9F27, the second forged)", "duplicate_9f27", check: withheld("malformed_response")),
            HostileTap("replayed cryptogram (the last tap's bytes again)", "replayed_cryptogram", check: withheld("replayed")),
        ]
    }
}
