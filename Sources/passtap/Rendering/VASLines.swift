import ISO7816
import PassTapCore
import VAS
import Wallets

/// The readable form of a tap's Apple VAS record: one line for the phone, one per merchant.
///
/// ```
/// vas: ApplePay v0100 caps=0000003E (encrypted,vas_may_be_performed,...) mode=vas_or_payment
/// vas pass.com.example.loyalty: data_not_found (6A83)
/// vas pass.com.example.coffee: success key=C0B77375 at 2026-11-22T12:00:00.000Z message="member 0042"
/// ```
///
/// A connection without the `read` role gets entries without their pass (`withheld: "access"`):
/// `vas pass.com.example.coffee: success key=C0B77375 (pass withheld: this connection lacks the
/// read role)`.
///
/// The wallet label, version, messages and problem texts come from the phone: each goes through
/// ``UntrustedText``.
enum VASLines {
    static func render(_ vas: VASSessionResult) -> [String] {
        var head = "vas: "
        if vas.offered {
            head += vas.wallet.map(UntrustedText.escaped) ?? "unknown wallet"
            if let version = vas.version { head += " v\(UntrustedText.escaped(version))" }
            if let capabilities = vas.capabilities {
                head += " caps=\(capabilities.hex) (\(UntrustedText.escaped(capabilities.bits.joined(separator: ","))))"
            }
        } else {
            head += "not offered"
        }
        head += " mode=\(vas.mode.rawValue)"
        if let problem = vas.problem { head += " — \(UntrustedText.escaped(problem))" }
        return [head] + vas.entries.map(entry)
    }

    static func entry(_ entry: VASEntry) -> String {
        var line = "vas \(UntrustedText.escaped(entry.passTypeID)): \(entry.status.rawValue)"
        if let sw = entry.sw, entry.status != .success { line += " (\(sw))" }
        if let keyID = entry.keyID { line += " key=\(keyID)" }
        if let payload = entry.payload {
            line += " at \(RFC3339.string(from: payload.date))"
            if let message = payload.messageText {
                line += " message=\(UntrustedText.quoted(message))"
            } else {
                line += " message_hex=\(payload.message.hexString)"
            }
        }
        if entry.withheld == .access { line += " (pass withheld: this connection lacks the read role)" }
        if let problem = entry.problem, entry.status != .dataNotFound { line += " — \(UntrustedText.escaped(problem))" }
        return line
    }
}
