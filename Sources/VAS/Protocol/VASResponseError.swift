import ISO7816

/// Why the answer to SELECT `OSE.VAS.01` cannot start a VAS read (vas-protocol.md §2.3).
///
/// Equal by ``code``; ``detail`` says what was received and what to do. Card bytes quoted in it
/// are cut at ``maximumQuotedBytes`` (``CardText/hex(_:maxBytes:)``), so a detail stays short
/// whatever the phone sent.
public struct VASResponseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable snake_case name.
    public enum Code: String, Hashable, Sendable {
        /// The status word was not `90 00`: the phone has no VAS applet or refused it.
        case selectRejected = "select_rejected"
        /// The data is not one `6F` FCI template.
        case notFCI = "not_fci"
        /// The data is not valid BER-TLV.
        case malformedTLV = "malformed_tlv"
        /// Tag `50` (wallet label) is missing.
        case missingWalletLabel = "missing_wallet_label"
        /// Tag `9F21` (VAS version) is missing.
        case missingVersion = "missing_version"
        /// Tag `9F21` is not `01 00`.
        case unsupportedVersion = "unsupported_version"
        /// Tag `9F23` (mobile capabilities) is missing.
        case missingCapabilities = "missing_capabilities"
        /// Tag `9F23` is not 4 bytes.
        case invalidCapabilities = "invalid_capabilities"
    }

    /// The most bytes of a card's value a detail quotes, in hex.
    public static let maximumQuotedBytes = 8

    /// What went wrong.
    public let code: Code
    /// What was received and what to do; never holds key material.
    public let detail: String

    init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "VAS SELECT answer \(code.rawValue): \(detail)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    static func selectRejected(_ statusWord: StatusWord) -> Self {
        Self(.selectRejected, "status \(statusWord.hex) instead of 9000: the tag has no VAS applet; read it as a plain card")
    }

    static func notFCI(_ found: String) -> Self {
        Self(.notFCI, "expected one 6F template, found \(found); the tag is not a VAS wallet")
    }

    static func malformedTLV(_ error: TLVError) -> Self {
        Self(.malformedTLV, "\(error); the phone's answer was cut or corrupted, tap again")
    }

    static let missingWalletLabel = Self(.missingWalletLabel, "no tag 50 wallet label in the FCI; the tag is not a VAS wallet")

    static let missingVersion = Self(.missingVersion, "ApplePay answer without tag 9F21 (VAS version); cannot tell which protocol to speak")

    static func unsupportedVersion(_ version: [UInt8]) -> Self {
        Self(.unsupportedVersion, "VAS version \(CardText.hex(version, maxBytes: maximumQuotedBytes)), only 0100 is known; the phone speaks a newer protocol")
    }

    static let missingCapabilities = Self(.missingCapabilities, "ApplePay answer without tag 9F23 (mobile capabilities)")

    static func invalidCapabilities(_ value: [UInt8]) -> Self {
        Self(.invalidCapabilities, "tag 9F23 is \(value.count) bytes (\(CardText.hex(value, maxBytes: maximumQuotedBytes))), expected 4")
    }
}
