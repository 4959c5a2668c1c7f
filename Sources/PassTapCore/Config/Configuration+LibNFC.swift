public import VAS
public import Wallets

extension Configuration {
    /// `[libnfc]`: PN532/PN533 boards, SCL3711 sticks and ACR122U units driven through libnfc,
    /// whose polling loop PassTap runs itself (so it can send Apple's ECP frame).
    ///
    /// Whether the backend runs at all is `backends[.nfc]` (`[libnfc] enabled`, off by default).
    public struct LibNFC: Sendable, Hashable {
        /// `ecp`: whether poll cycles send an Enhanced Contactless Polling frame.
        public enum ECP: String, Sendable, Hashable, CaseIterable {
            /// The `[vas]` frame when VAS is on (or `ecp_frame` when set).
            case auto
            /// Never.
            case off
        }

        /// `devices`: libnfc connection strings (`pn532_uart:/dev/ttyUSB0`, `pn53x_usb`,
        /// `acr122_usb`); empty means the devices libnfc's scan finds.
        public var devices: [String] = []
        /// `poll_interval_ms`: the period of the polling cycle (ECP, then one select).
        public var pollIntervalMilliseconds: Int = 50
        /// `rearm_ms`: how long no target must answer before a new session can start on the
        /// reader (phones change their UID on every activation, so a tap is not told by UID).
        public var rearmMilliseconds: Int = 1000
        /// `ecp`.
        public var ecp: ECP = .auto
        /// `ecp_frame`: a frame to send instead of the `[vas]` one (other terminal types).
        public var ecpFrame: ECPFrame? = nil

        /// The defaults of the shipped config.
        public init() {}

        /// The frame every poll cycle sends, or `nil` for none: with `ecp = "auto"`, `ecp_frame`
        /// when set, else the VASUP-A frame of `vasMode` (`[vas] mode` while VAS is on, `nil`
        /// while it is off).
        public func pollingFrame(vasMode: PassMode?) -> ECPFrame? {
            guard ecp == .auto else { return nil }
            if let ecpFrame { return ecpFrame }
            return vasMode.map(ECPFrame.init(mode:))
        }

        /// Whether a session that failed for RF reasons still ends with S(DESELECT): not in the
        /// VAS-and-payment modes, where the phone would stop routing to VAS until the customer
        /// authenticates again (docs/vas-protocol.md §4.3). `vasMode` as for ``pollingFrame(vasMode:)``.
        public static func deselectsAfterRFFailure(vasMode: PassMode?) -> Bool {
            vasMode == nil || vasMode == .vasOnly
        }
    }
}
