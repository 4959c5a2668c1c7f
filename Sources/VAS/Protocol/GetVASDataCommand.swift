public import ISO7816
import Wallets

/// GET VAS DATA (vas-protocol.md §3): one per merchant, after a single SELECT.
///
/// ```
/// CLA INS P1 P2  Lc  Data                                    Le
/// 80  CA  01 01  len 9F22 02 0100                            00     P2 01 = full VAS
///                    9F25 20 SHA-256(pass type id)  (full only)     P2 00 = URL only
///                    9F26 04 00 80 00 (more ? 80 : 00) | mode
///                    9F28 04 terminal nonce         (optional)
///                    9F2B 05 01 00 00 00 00         (optional)
///                    9F29 nn URL                    (optional, <= 64)
/// ```
/// Tag order does not matter to the phone; this order is the Android reader's.
public struct GetVASDataCommand: Hashable, Sendable {
    /// `80`: proprietary class.
    public static let cla: UInt8 = 0x80
    /// `CA`: GET DATA.
    public static let ins: UInt8 = 0xCA
    /// `01`.
    public static let p1: UInt8 = 0x01
    /// P2 for full VAS.
    public static let p2FullVAS: UInt8 = 0x01
    /// P2 for URL only.
    public static let p2URLOnly: UInt8 = 0x00
    /// `9F26` byte 4 bit 7: more GET VAS DATA commands follow in this session.
    public static let moreRequestsBit: UInt8 = 0x80
    /// `9F26` byte 2 bit 7: VAS supported (terminal type 0, no user authentication required).
    public static let vasSupportedBit: UInt8 = 0x80
    /// Length of the `9F28` terminal nonce.
    public static let nonceLength = 4

    /// What is asked for.
    public let request: VASMerchantRequest
    /// The VAS mode (low bits of `9F26` byte 4).
    public let mode: PassMode
    /// Sets the "more requests follow" bit: true on every request of a tap but the last.
    public let moreRequestsFollow: Bool
    /// The `9F28` value; `nil` leaves the tag out.
    public let terminalNonce: [UInt8]?

    /// A command with a given nonce (tests, replays); the nonce must be 4 bytes or `nil`.
    public init(
        request: VASMerchantRequest, mode: PassMode, moreRequestsFollow: Bool, terminalNonce: [UInt8]?
    ) throws(VASCommandError) {
        if let terminalNonce, terminalNonce.count != Self.nonceLength {
            throw VASCommandError(.invalidNonce, "terminal nonce of \(terminalNonce.count) bytes; 9F28 carries exactly \(Self.nonceLength)")
        }
        self.request = request
        self.mode = mode
        self.moreRequestsFollow = moreRequestsFollow
        self.terminalNonce = terminalNonce
    }

    /// A command with 4 fresh random nonce bytes from `generator`.
    public init(
        request: VASMerchantRequest, mode: PassMode, moreRequestsFollow: Bool,
        using generator: inout some RandomNumberGenerator
    ) {
        self.request = request
        self.mode = mode
        self.moreRequestsFollow = moreRequestsFollow
        self.terminalNonce = Self.makeNonce(using: &generator)
    }

    /// One command per request, in order, the "more" bit on all but the last, each with its own
    /// random nonce.
    public static func sequence(
        for requests: [VASMerchantRequest], mode: PassMode,
        using generator: inout some RandomNumberGenerator
    ) -> [GetVASDataCommand] {
        requests.enumerated().map { index, request in
            GetVASDataCommand(
                request: request, mode: mode, moreRequestsFollow: index < requests.count - 1, using: &generator
            )
        }
    }

    /// The same, with the system's random number generator.
    public static func sequence(for requests: [VASMerchantRequest], mode: PassMode) -> [GetVASDataCommand] {
        var generator = SystemRandomNumberGenerator()
        return sequence(for: requests, mode: mode, using: &generator)
    }

    /// The `9F26` value: `00 80 00 (more ? 80 : 00) | mode`.
    public var terminalCapabilities: [UInt8] {
        [0x00, Self.vasSupportedBit, 0x00, (moreRequestsFollow ? Self.moreRequestsBit : 0x00) | mode.bits]
    }

    /// The command's data objects.
    public var data: [UInt8] {
        var out = BERTLVWriter.encode(tag: VASTag.terminalVersion, value: VASApplication.version)
        if let pass = request.passTypeIdentifier {
            out += BERTLVWriter.encode(tag: VASTag.merchantID, value: pass.sha256)
        }
        out += BERTLVWriter.encode(tag: VASTag.terminalCapabilities, value: terminalCapabilities)
        if let terminalNonce {
            out += BERTLVWriter.encode(tag: VASTag.terminalNonce, value: terminalNonce)
        }
        if let filter = request.filter {
            out += BERTLVWriter.encode(tag: VASTag.filter, value: filter)
        }
        if let url = request.url {
            out += BERTLVWriter.encode(tag: VASTag.url, value: Array(url.utf8))
        }
        return out
    }

    /// The APDU: `80 CA 01 P2 Lc data 00`.
    public var apdu: CommandAPDU {
        CommandAPDU(
            cla: Self.cla, ins: Self.ins, p1: Self.p1,
            p2: request.isFullVAS ? Self.p2FullVAS : Self.p2URLOnly,
            data: data, le: 256
        )
    }

    private static func makeNonce(using generator: inout some RandomNumberGenerator) -> [UInt8] {
        let value = generator.next() as UInt32
        return [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
