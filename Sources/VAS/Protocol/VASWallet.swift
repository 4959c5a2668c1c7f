import ISO7816

/// Which wallet answered SELECT `OSE.VAS.01`, from the label in tag `50` (vas-protocol.md §2.2).
///
/// The phone picks the label's bytes and length, so another wallet's label is kept only as
/// ``CardText`` makes it: printable, `\xNN` for any other byte, at most ``maximumLabelBytes`` of
/// it, then `...[N bytes]` (8 000 bytes of `01` are `\x01` 32 times, then `...[8000 bytes]`).
public enum VASWallet: Hashable, Sendable, CustomStringConvertible {
    /// The most label bytes kept (`ApplePay` is 8, `AndroidPay` 10).
    public static let maximumLabelBytes = 32

    /// `ApplePay`: Apple Wallet; VAS can run.
    case applePay
    /// `AndroidPay`: Google Wallet; Smart Tap, not VAS.
    case androidPay
    /// Any other label (for example `SamsungWallet`), as ``CardText`` publishes it.
    case other(String)

    /// Classifies a label's bytes; another wallet's label is made printable and short.
    public init(label: [UInt8]) {
        switch label {
        case Array("ApplePay".utf8): self = .applePay
        case Array("AndroidPay".utf8): self = .androidPay
        default: self = .other(CardText.printable(label, maxBytes: Self.maximumLabelBytes))
        }
    }

    /// The label text: `ApplePay`, `AndroidPay`, or the other label.
    public var label: String {
        switch self {
        case .applePay: return "ApplePay"
        case .androidPay: return "AndroidPay"
        case .other(let label): return label
        }
    }

    public var description: String { label }
}
