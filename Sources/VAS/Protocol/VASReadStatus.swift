public import ISO7816

/// The outcome of asking the phone for one merchant's pass, with stable snake_case raw values
/// for events and the socket (vas-protocol.md §4.2, §5).
///
/// | SW | Status | Apple's name |
/// |---|---|---|
/// | `90 00` | `success` | success |
/// | `62 87` | `data_not_activated` | dataNotActivated: pass needs Face ID/Touch ID, or already read |
/// | `69 84` | `user_intervention` | userIntervention |
/// | `6A 83` | `data_not_found` | dataNotFound: no such pass on the phone |
/// | `6A 80` | `incorrect_data` | incorrectData |
/// | `67 00` | `wrong_length` | wrongLCField |
/// | `6B 00` | `wrong_parameters` | wrongParameters |
/// | `63 40` | `unsupported_version` | unsupportedApplicationVersion |
/// | other | `unexpected_status` | (the SW is reported beside the status) |
///
/// The rest are found by the reader: `malformed_response` (the answer does not parse),
/// `no_matching_key`, `decrypt_failed`, `stale` (timestamp outside the freshness window),
/// `replayed` (a cryptogram whose one-time phone key was already read: see ``VASReplayCache``)
/// and `not_requested` (the merchant was not asked in this tap).
public enum VASReadStatus: String, CaseIterable, Hashable, Sendable, Codable {
    case success
    case dataNotActivated = "data_not_activated"
    case userIntervention = "user_intervention"
    case dataNotFound = "data_not_found"
    case incorrectData = "incorrect_data"
    case wrongLength = "wrong_length"
    case wrongParameters = "wrong_parameters"
    case unsupportedVersion = "unsupported_version"
    case unexpectedStatus = "unexpected_status"
    case malformedResponse = "malformed_response"
    case noMatchingKey = "no_matching_key"
    case decryptFailed = "decrypt_failed"
    case stale
    case replayed
    case notRequested = "not_requested"

    /// `63 40`: the phone does not accept the terminal's `9F22` version.
    public static let unsupportedVersionStatusWord = StatusWord(rawValue: 0x6340)

    /// The status a GET VAS DATA status word stands for; anything unlisted is `unexpected_status`.
    public init(statusWord: StatusWord) {
        switch statusWord {
        case .success: self = .success
        case .dataNotActivated: self = .dataNotActivated
        case .referenceDataNotUsable: self = .userIntervention
        case .referencedDataNotFound: self = .dataNotFound
        case .incorrectData: self = .incorrectData
        case .wrongLength: self = .wrongLength
        case .wrongParameters: self = .wrongParameters
        case Self.unsupportedVersionStatusWord: self = .unsupportedVersion
        default: self = .unexpectedStatus
        }
    }
}
