import ISO7816
import PassTapCore
import SmartTap

/// The readable form of a tap's Google Smart Tap record: one line for the session, one per object.
///
/// ```
/// smarttap: v0001 success (9000) collector=20180608 customer="4B3C2D1E" tap="0F1E2D3C"
/// smarttap loyalty: issuer="3388000000012345678" object="00000000000000A1" value="member 0042"
/// ```
///
/// A connection without the `read` role gets no customer, tap or objects, and `(pass withheld:
/// this connection lacks the read role)`. Everything the phone chose goes through ``UntrustedText``.
enum SmartTapLines {
    static func render(_ smartTap: SmartTapSessionResult) -> [String] {
        var head = "smarttap:"
        if let version = smartTap.version { head += " v\(UntrustedText.escaped(version))" }
        head += " \(smartTap.status?.rawValue ?? "unfinished")"
        if let sw = smartTap.sw { head += " (\(sw)\(smartTap.code.map { ", code \([$0].hexString)" } ?? ""))" }
        if let collector = smartTap.collectorID { head += " collector=\(collector)" }
        if let customer = smartTap.customerID { head += " customer=\(UntrustedText.quoted(customer))" }
        if let tap = smartTap.tapID { head += " tap=\(UntrustedText.quoted(tap))" }
        if smartTap.withheld == .access { head += " (pass withheld: this connection lacks the read role)" }
        if let problem = smartTap.problem { head += " — \(UntrustedText.escaped(problem))" }
        return [head] + smartTap.objects.map(object)
    }

    static func object(_ object: SmartTapPublishedObject) -> String {
        var line = "smarttap \(UntrustedText.escaped(object.type)):"
        if let issuer = object.issuerID { line += " issuer=\(UntrustedText.quoted(issuer))" }
        if let id = object.objectID { line += " object=\(UntrustedText.quoted(id))" }
        if let value = object.value { line += " value=\(UntrustedText.quoted(value))" }
        return line
    }
}
