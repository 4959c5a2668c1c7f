public import ISO7816

/// The checked answer to SELECT `OSE.VAS.01` (vas-protocol.md §2.2, §2.3).
///
/// ```
/// 6F 1D
///    50 08 4170706C65506179        "ApplePay"
///    9F21 02 0100                  VAS application version 1.0
///    9F24 04 E9CAEDE3              device nonce (random per SELECT)
///    9F23 04 0000003E              mobile capabilities
/// 90 00
/// ```
/// Checks, in any tag order: SW `90 00`; the data is one `6F` template; tag `50` is present. For
/// `ApplePay`, `9F21` must be `01 00` and `9F23` must be 4 bytes; `9F24` is optional. Other wallets
/// are reported with whatever of `9F21`/`9F23`/`9F24` they sent, so a session can say which wallet
/// it met without doing VAS. Whether VAS may run is ``vasMayBePerformed``, not an error.
public struct VASSelectResponse: Hashable, Sendable {
    /// Which wallet answered.
    public let wallet: VASWallet
    /// The `9F21` value: always `01 00` for Apple; whatever was sent (or `nil`) for others.
    public let version: [UInt8]?
    /// The `9F23` capabilities: always present for Apple; `nil` when another wallet sent none.
    public let capabilities: VASMobileCapabilities?
    /// The `9F24` mobile nonce, when sent. It does not enter the cryptography.
    public let nonce: [UInt8]?

    /// Checks a SELECT answer.
    public init(_ response: ResponseAPDU) throws(VASResponseError) {
        guard response.statusWord == .success else { throw .selectRejected(response.statusWord) }
        try self.init(data: response.data)
    }

    /// Checks the data of a SELECT answer that ended `90 00`.
    public init(data: [UInt8]) throws(VASResponseError) {
        let fci = try Self.fciTemplate(of: data)
        guard let label = fci.first(VASTag.walletLabel) else { throw .missingWalletLabel }
        let wallet = VASWallet(label: label.value)
        let version = fci.first(VASTag.applicationVersion)?.value
        let capabilitiesValue = fci.first(VASTag.mobileCapabilities)?.value

        if wallet == .applePay {
            guard let version else { throw .missingVersion }
            guard version == VASApplication.version else { throw .unsupportedVersion(version) }
            guard let capabilitiesValue else { throw .missingCapabilities }
            guard let capabilities = VASMobileCapabilities(bytes: capabilitiesValue) else {
                throw .invalidCapabilities(capabilitiesValue)
            }
            self.capabilities = capabilities
        } else {
            self.capabilities = capabilitiesValue.flatMap(VASMobileCapabilities.init(bytes:))
        }
        self.wallet = wallet
        self.version = version
        self.nonce = fci.first(VASTag.mobileNonce)?.value
    }

    /// The answer's one `6F` template, parsed within the limits a SELECT answer needs: six levels,
    /// as a Google Wallet phone's Smart Tap directory nests five (`6F A5 BF0C 61 73`).
    static func fciTemplate(of data: [UInt8]) throws(VASResponseError) -> TLVNode {
        let nodes: [TLVNode]
        do {
            nodes = try BERTLVParser.parse(data, limits: TLVLimits(maxDepth: 6, maxNodes: 64))
        } catch {
            throw .malformedTLV(error)
        }
        guard nodes.count == 1, let fci = nodes.first, fci.tag == VASTag.fci else {
            throw .notFCI(nodes.isEmpty ? "no data" : nodes.map(\.tag.hex).joined(separator: " "))
        }
        return fci
    }

    /// Apple Wallet answered and says VAS may be performed (`9F23` bit 3).
    public var vasMayBePerformed: Bool {
        wallet == .applePay && capabilities?.contains(.vasMayBePerformed) == true
    }
}
