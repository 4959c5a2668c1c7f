import Crypto
import Foundation
import ISO7816
import PassTapCore
import VAS

/// Builds an in-process iPhone on a ``FakeCard`` for session-engine unit tests: the VAS applet's
/// SELECT answer and GET VAS DATA answers sealed with `VASCryptogramSealer`. (Integration tests
/// use the Python virtual iPhone through pcscd and vpcd instead.)
struct FakePhone {
    /// A pass the phone holds.
    struct Pass {
        var passTypeID: String
        var merchantKey: MerchantKey
        var message: String
        var needsAuthentication = false
    }

    var passes: [Pass] = []
    var wallet = "ApplePay"
    var capabilities: [UInt8] = [0x00, 0x00, 0x00, 0x3E]
    var variant: VASCipherVariant = .a
    /// Seconds since 2001-01-01 put in the plaintext.
    var timestamp: UInt32 = 800_000_000
    /// Replaces a sealed success answer (data + SW) to test malformed answers.
    var overrideAnswer: [UInt8]? = nil

    /// The SELECT OSE.VAS.01 answer data.
    var selectAnswer: [UInt8] {
        BERTLVWriter.encode(
            tag: 0x6F,
            value: BERTLVWriter.encode(tag: 0x50, value: Array(wallet.utf8))
                + BERTLVWriter.encode(tag: 0x9F21, value: [0x01, 0x00])
                + BERTLVWriter.encode(tag: 0x9F24, value: [0xE9, 0xCA, 0xED, 0xE3])
                + BERTLVWriter.encode(tag: 0x9F23, value: capabilities))
    }

    /// The date that ``timestamp`` stands for.
    var date: Date { Date(timeIntervalSince1970: TimeInterval(Int64(timestamp) + VASPayload.appleEpochOffset)) }

    /// Installs the phone on `card`.
    func install(on card: FakeCard) {
        card.applications[VASApplication.aid.hex] = selectAnswer
        card.onProprietary = { command in answer(command) }
    }

    /// The BER-TLV data objects of a short command APDU (`CLA INS P1 P2 Lc data [Le]`), such as
    /// GET VAS DATA's `9F22`, `9F25`, `9F26`, `9F28`.
    static func dataObjects(of command: [UInt8]) throws -> [TLVNode] {
        try BERTLVParser.parse(Array(command[5..<(5 + Int(command[4]))]))
    }

    /// The answer to one GET VAS DATA.
    func answer(_ command: [UInt8]) -> [UInt8] {
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
        let template = BERTLVWriter.encode(
            tag: 0x70,
            value: BERTLVWriter.encode(tag: 0x9F2A, value: []) + BERTLVWriter.encode(tag: 0x9F27, value: cryptogram.bytes))
        return template + [0x90, 0x00]
    }
}

extension Configuration.VASMerchant {
    /// A full-VAS merchant with in-memory keys.
    static func test(_ passTypeID: String, keys: [MerchantKey]) -> Self {
        try! Configuration.VASMerchant(
            passTypeIdentifier: PassTypeIdentifier(passTypeID), url: nil, filter: nil, keys: keys,
            keyPaths: keys.map { "/keys/\($0.keyID.hex).pem" })
    }
}
