import ISO7816
import PassTapCore
import VAS

/// The readable form of a tap's Apple VAS record: one line for the phone, one per merchant.
///
/// ```
/// vas: ApplePay v0100 caps=0000003E (encrypted,vas_may_be_performed,...) mode=vas_or_payment
/// vas pass.com.example.loyalty: data_not_found (6A83)
/// vas pass.com.example.coffee: success key=C0B77375 at 2026-11-22T12:00:00.000Z message="member 0042"
/// ```
enum VASLines {
    static func render(_ vas: VASSessionResult) -> [String] {
        var head = "vas: "
        if vas.offered {
            head += vas.wallet ?? "unknown wallet"
            if let version = vas.version { head += " v\(version)" }
            if let capabilities = vas.capabilities {
                head += " caps=\(capabilities.hex) (\(capabilities.bits.joined(separator: ",")))"
            }
        } else {
            head += "not offered"
        }
        head += " mode=\(vas.mode.rawValue)"
        if let problem = vas.problem { head += " — \(problem)" }
        return [head] + vas.entries.map(entry)
    }

    static func entry(_ entry: VASEntry) -> String {
        var line = "vas \(entry.passTypeID): \(entry.status.rawValue)"
        if let sw = entry.sw, entry.status != .success { line += " (\(sw))" }
        if let keyID = entry.keyID { line += " key=\(keyID)" }
        if let payload = entry.payload {
            line += " at \(RFC3339.string(from: payload.date))"
            if let message = payload.messageText {
                line += " message=\(quoted(message))"
            } else {
                line += " message_hex=\(payload.message.hexString)"
            }
        }
        if let problem = entry.problem, entry.status != .dataNotFound { line += " — \(problem)" }
        return line
    }

    /// The message in double quotes with quotes, backslashes and control characters escaped, so
    /// a pass cannot forge terminal output.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
