public import Wallets

extension PassMode {
    /// The two mode bits of `9F26` byte 4 (vas-protocol.md §3.3), which must match the ECP
    /// frame's last byte (§7.2).
    public var bits: UInt8 {
        switch self {
        case .vasOrPayment: return 0x00
        case .vasAndPayment: return 0x01
        case .vasOnly: return 0x02
        }
    }
}
