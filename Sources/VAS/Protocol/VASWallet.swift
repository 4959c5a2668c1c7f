/// Which wallet answered SELECT `OSE.VAS.01`, from the label in tag `50` (vas-protocol.md §2.2).
public enum VASWallet: Hashable, Sendable, CustomStringConvertible {
    /// `ApplePay`: Apple Wallet; VAS can run.
    case applePay
    /// `AndroidPay`: Google Wallet; Smart Tap, not VAS.
    case androidPay
    /// Any other label (for example `SamsungWallet`), as text.
    case other(String)

    /// Classifies a label's bytes. Invalid UTF-8 is decoded with replacement characters.
    public init(label: [UInt8]) {
        switch label {
        case Array("ApplePay".utf8): self = .applePay
        case Array("AndroidPay".utf8): self = .androidPay
        default: self = .other(String(decoding: label, as: UTF8.self))
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
