import Foundation
import ISO7816
import PassTapCore
import VAS

/// An iPhone's VAS applet, for the unit tests and the session fuzz targets: its SELECT
/// `OSE.VAS.01` answer, and GET VAS DATA answers sealed with `VASCryptogramSealer` for the passes
/// it holds. ``install(on:)`` puts it on a ``ScriptedCard``. (Integration tests use the Python
/// virtual iPhone through pcscd and vpcd instead.)
public struct VASPhone: Sendable {
    /// A pass the phone holds.
    public struct Pass: Sendable {
        public var passTypeID: String
        public var merchantKey: MerchantKey
        public var message: String
        public var needsAuthentication = false

        public init(passTypeID: String, merchantKey: MerchantKey, message: String, needsAuthentication: Bool = false) {
            self.passTypeID = passTypeID
            self.merchantKey = merchantKey
            self.message = message
            self.needsAuthentication = needsAuthentication
        }
    }

    public var passes: [Pass] = []
    public var wallet = "ApplePay"
    public var capabilities: [UInt8] = [0x00, 0x00, 0x00, 0x3E]
    public var variant: VASCipherVariant = .a
    /// Seconds since 2001-01-01 put in the plaintext.
    public var timestamp: UInt32 = 800_000_000
    /// Replaces a sealed success answer (data + SW) to test malformed answers.
    public var overrideAnswer: [UInt8]? = nil

    public init() {}

    /// The SELECT `OSE.VAS.01` answer data (without its status word).
    public var selectAnswer: [UInt8] {
        BERTLVWriter.encode(
            tag: 0x6F,
            value: BERTLVWriter.encode(tag: 0x50, value: Array(wallet.utf8))
                + BERTLVWriter.encode(tag: 0x9F21, value: [0x01, 0x00])
                + BERTLVWriter.encode(tag: 0x9F24, value: [0xE9, 0xCA, 0xED, 0xE3])
                + BERTLVWriter.encode(tag: 0x9F23, value: capabilities))
    }

    /// A successful GET VAS DATA answer carrying `cryptogram`, status word included.
    public static func dataAnswer(cryptogram: [UInt8]) -> [UInt8] {
        BERTLVWriter.encode(tag: 0x70, value: BERTLVWriter.encode(tag: 0x9F2A, value: []) + BERTLVWriter.encode(tag: 0x9F27, value: cryptogram))
            + [0x90, 0x00]
    }

    /// The date that ``timestamp`` stands for.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(Int64(timestamp) + VASPayload.appleEpochOffset)) }

    /// Installs the phone on `card`: the VAS applet's SELECT answer, and the answers to
    /// proprietary commands (CLA `80`).
    public func install(on card: ScriptedCard) {
        card.applications[VASApplication.aid.hex] = selectAnswer
        card.onCommand = { command in command.first == 0x80 ? answer(command) : nil }
    }

    /// The BER-TLV data objects of a short command APDU (`CLA INS P1 P2 Lc data [Le]`), such as
    /// GET VAS DATA's `9F22`, `9F25`, `9F26`, `9F28`.
    public static func dataObjects(of command: [UInt8]) throws -> [TLVNode] {
        try BERTLVParser.parse(Array(command[5..<(5 + Int(command[4]))]))
    }

    /// The answer to one proprietary command: GET VAS DATA (`80 CA`), `6D00` to the others.
    public func answer(_ command: [UInt8]) -> [UInt8] {
        guard command.count > 5, command[1] == 0xCA else { return [0x6D, 0x00] }
        guard let nodes = try? Self.dataObjects(of: command) else { return [0x6A, 0x80] }
        guard let merchantID = nodes.first(0x9F25)?.value else { return [0x90, 0x00] }  // URL only
        guard let pass = passes.first(where: { (try? PassTypeIdentifier($0.passTypeID))?.sha256 == merchantID }) else {
            return [0x6A, 0x83]
        }
        if pass.needsAuthentication { return [0x62, 0x87] }
        if let overrideAnswer { return overrideAnswer }
        let identifier = try! PassTypeIdentifier(pass.passTypeID)
        let cryptogram = try! VASCryptogramSealer.seal(
            payload: VASPayload(timestampRaw: timestamp, message: Array(pass.message.utf8)),
            merchantPublicKey: pass.merchantKey.publicKey, passTypeIdentifier: identifier, variant: variant)
        return Self.dataAnswer(cryptogram: cryptogram.bytes)
    }
}
