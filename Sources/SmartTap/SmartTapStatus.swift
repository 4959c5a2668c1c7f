/// What one Smart Tap session came to, as `read.result`'s `smarttap.status` publishes it: the
/// phone's status words mapped to names (Smart Tap 2.1 terminal reference), and PassTap's own checks.
public enum SmartTapStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// A pass was read, its MAC checked and decrypted.
    case success
    /// The phone has no pass for this collector (`9001`).
    case noPass = "no_pass"
    /// The user must choose a pass or unlock the phone first (`93xx`).
    case userMustChoose = "user_must_choose"
    /// The phone asks the terminal to try again (`92xx`).
    case retry
    /// The phone refused the terminal (`94xx`: the code says why).
    case refused
    /// The phone's answer does not follow the protocol (a bad record, length or status word).
    case malformedResponse = "malformed_response"
    /// The record bundle's HMAC did not match: it was not decrypted.
    case badMAC = "bad_mac"
}
