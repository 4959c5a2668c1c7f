import ISO7816

/// The parts of Android's answer to SELECT `OSE.VAS.01` that Smart Tap uses (docs/smarttap.md,
/// "The protocol as implemented"):
///
/// ```
/// 6F ..
///    50 0A 416E64726F6964506179     "AndroidPay"
///    C0 02 0001                     Smart Tap version
///    C1 08 ..                       (not used)
///    C2 20 <32 bytes>               device nonce          } version 2.1 phones; otherwise
///    C3 21 <33 bytes>               device ephemeral key  } SELECT A000000476D0000111
///    A5 ..                          (not used)
/// ```
public struct SmartTapSelectAnswer: Sendable, Hashable {
    /// The wallet label `AndroidPay` (tag `50`) that marks a Google Wallet phone.
    public static let androidLabel = Array("AndroidPay".utf8)

    /// Tag `50` says `AndroidPay`.
    public let isAndroid: Bool
    /// Tag `C0`, when sent.
    public let version: [UInt8]?
    /// Tag `C2` when it is 32 bytes.
    public let deviceNonce: [UInt8]?
    /// Tag `C3` when it is a 33-byte compressed P-256 point.
    public let deviceEphemeralKey: [UInt8]?

    /// Reads the data of the SELECT answer (without the status word).
    public init(oseData data: [UInt8]) throws(SmartTapAnswerError) {
        let nodes: [TLVNode]
        do {
            nodes = try BERTLVParser.parse(data, limits: TLVLimits(maxDepth: 6, maxNodes: 64))
        } catch {
            throw SmartTapAnswerError("the OSE.VAS.01 answer is not BER-TLV (\(error))")
        }
        guard nodes.count == 1, let fci = nodes.first, fci.tag == 0x6F else {
            throw SmartTapAnswerError("the OSE.VAS.01 answer is not one 6F template")
        }
        isAndroid = fci.first(0x50)?.value == Self.androidLabel
        version = fci.first(0xC0)?.value
        deviceNonce = fci.first(0xC2)?.value.count == 32 ? fci.first(0xC2)?.value : nil
        let key = fci.first(0xC3)?.value
        deviceEphemeralKey = key?.count == 33 && (key?.first == 0x02 || key?.first == 0x03) ? key : nil
    }

    /// The answer carries the device nonce and key, so SELECT `A000000476D0000111` is not needed.
    public var hasSecureChannelMaterial: Bool { deviceNonce != nil && deviceEphemeralKey != nil }
}

/// A phone's answer that does not follow the Smart Tap protocol; ``reason`` says what was found.
public struct SmartTapAnswerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, naming the command and the field.
    public let reason: String
    init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
