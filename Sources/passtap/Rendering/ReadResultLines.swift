import PassTapCore
import VAS

/// The lines under a tap's head line, in `watch` and `pass-read`: the wallet that answered and a
/// tag's NDEF records.
///
/// Only the wallet that answered is shown: Smart Tap when `smarttap` is there; Apple VAS when
/// the wallet is `ApplePay`, VAS gave a pass, or no Smart Tap record says which wallet answered.
/// An Android phone's `vas` record (wallet `AndroidPay`, every entry `not_requested`, a problem
/// saying that wallet does not do Apple VAS) stays on the wire but is not printed, unless one of
/// its entries got another status: a real error (docs/socket-api.md, "The `smarttap` member").
enum ReadResultLines {
    static func render(_ result: ReadResult) -> [String] {
        var lines: [String] = []
        if let vas = result.vas, showsVAS(vas, beside: result.smartTap) { lines += VASLines.render(vas) }
        if let smartTap = result.smartTap { lines += SmartTapLines.render(smartTap) }
        if let ndef = result.ndef { lines += NDEFLines.render(ndef) }
        return lines
    }

    /// Whether `vas` is printed beside `smartTap` (see the type's comment).
    static func showsVAS(_ vas: VASSessionResult, beside smartTap: SmartTapSessionResult?) -> Bool {
        guard smartTap != nil, vas.wallet != VASWallet.applePay.label, !vas.readAPass else { return true }
        return vas.entries.contains { $0.status != .notRequested }
    }
}
