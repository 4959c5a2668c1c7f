public import VAS
public import Wallets
import ISO7816

/// The Apple VAS part of a tap, published as `read.result`'s `vas` (null when VAS is disabled).
///
/// ```json
/// {"offered": true, "wallet": "ApplePay", "version": "0100",
///  "capabilities": {"hex": "0000003E", "bits": ["encrypted", "vas_may_be_performed", ...]},
///  "mode": "vas_or_payment", "problem": null, "entries": [ ... ]}
/// ```
/// `offered` is false when the tag has no VAS applet (SELECT `OSE.VAS.01` was refused or not
/// sent); `wallet` and `capabilities` are reported whenever the phone answered, even when VAS was
/// not done (another wallet, or the phone said VAS may not be performed: see `problem`).
public struct VASSessionResult: Sendable, Hashable, Codable {
    /// `9F23` as hex and as named bits.
    public struct Capabilities: Sendable, Hashable, Codable {
        /// The four bytes, upper-case hex.
        public var hex: String
        /// The set bits' names (`encrypted`, `vas_may_be_performed`...).
        public var bits: [String]

        /// Describes a `9F23` value.
        public init(_ capabilities: VASMobileCapabilities) {
            hex = capabilities.hex
            bits = capabilities.bitNames
        }
    }

    /// Whether the tag answered SELECT `OSE.VAS.01` with `90 00`.
    public var offered: Bool
    /// The wallet label (`ApplePay`, `AndroidPay`, other), when the answer had one.
    @Nullable public var wallet: String?
    /// The `9F21` application version, hex (``publishedVersion(_:)``: at most
    /// ``maximumVersionBytes`` of it, then `...[N bytes]`).
    @Nullable public var version: String?
    /// The `9F23` mobile capabilities.
    @Nullable public var capabilities: Capabilities?
    /// The mode asked for (`vas_only`, `vas_or_payment`, `vas_and_payment`).
    public var mode: PassMode
    /// Why no GET VAS DATA was sent although the applet answered; `nil` otherwise.
    @Nullable public var problem: String?
    /// One entry per configured merchant, in request order.
    public var entries: [VASEntry]

    /// Creates a result.
    public init(
        offered: Bool, wallet: String?, version: String?, capabilities: Capabilities?, mode: PassMode,
        problem: String?, entries: [VASEntry]
    ) {
        self.offered = offered
        self.wallet = wallet
        self.version = version
        self.capabilities = capabilities
        self.mode = mode
        self.problem = problem
        self.entries = entries
    }

    /// The most `9F21` bytes published (Apple's is 2: `0100`).
    public static let maximumVersionBytes = 8

    /// A `9F21` value as `version` publishes it: hex, cut at ``maximumVersionBytes`` and marked.
    public static func publishedVersion(_ bytes: [UInt8]) -> String {
        CardText.hex(bytes, maxBytes: maximumVersionBytes)
    }

    /// Whether some merchant's pass was read and published in this tap. A URL-only merchant's
    /// `success` (the phone took the sign-up URL) carries no pass and does not count.
    public var readAPass: Bool { entries.contains(where: \.hasPass) }

    /// This result as a `vas.read` that asked for `requested` gets it, when one tap answered
    /// several reads that asked for different merchants: the other merchants' entries are
    /// `not_requested`, with nothing the phone answered for them.
    public func narrowed(to requested: Set<String>) -> VASSessionResult {
        var narrowed = self
        narrowed.entries = entries.map { entry in
            requested.contains(entry.passTypeID) ? entry : VASEntry(passTypeID: entry.passTypeID, status: .notRequested)
        }
        return narrowed
    }
}
