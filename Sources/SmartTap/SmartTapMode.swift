public import Wallets

/// The VAS type of the POS capabilities a terminal sends with GET DATA (`pcr`, last byte), which
/// tells the phone whether a payment follows (docs/smarttap.md, "The protocol as implemented").
public enum SmartTapMode: String, Sendable, Hashable, CaseIterable {
    /// Passes only (`01`).
    case passOnly = "pass_only"
    /// A pass, or a payment if there is none (`08`).
    case passOverPayment = "pass_over_payment"
    /// A pass and a payment (`04`).
    case passAndPayment = "pass_and_payment"

    /// The mode that matches a VAS mode: `vas_only` is pass only, `vas_or_payment` pass over
    /// payment, `vas_and_payment` pass and payment (docs/smarttap.md, "Configuration").
    public init(_ mode: PassMode) {
        switch mode {
        case .vasOnly: self = .passOnly
        case .vasOrPayment: self = .passOverPayment
        case .vasAndPayment: self = .passAndPayment
        }
    }

    /// The VAS-type byte of `pcr`.
    public var vasTypeByte: UInt8 {
        switch self {
        case .passOnly: 0x01
        case .passAndPayment: 0x04
        case .passOverPayment: 0x08
        }
    }
}
