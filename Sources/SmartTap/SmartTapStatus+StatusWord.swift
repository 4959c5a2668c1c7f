public import ISO7816

extension SmartTapStatus {
    /// The status a phone's status word ends a session with, or `nil` when the session goes on
    /// (`9000`, and the `90xx`/`91xx` that carry data; the reader decides by command). The Smart
    /// Tap reference (status words): `9001` no pass; `92xx` a transient failure, retry; `93xx`
    /// the user must act (choose a pass, unlock); `94xx` refused, the second byte says why.
    /// Anything else is not a Smart Tap status word: ``malformedResponse``.
    public static func ending(_ sw: StatusWord) -> SmartTapStatus? {
        switch sw.sw1 {
        case 0x90 where sw.sw2 == 0x01: .noPass
        case 0x90, 0x91: nil
        case 0x92: .retry
        case 0x93: .userMustChoose
        case 0x94: .refused
        default: .malformedResponse
        }
    }
}
