import Crypto
import ISO7816
import NDEF
import Testing
import _CryptoExtras

@testable import SmartTap

/// An Android phone for the reader's unit tests, written from the public descriptions
/// (docs/smarttap.md) with swift-crypto directly: its key derivation and sealing share no code
/// with SmartTap's, so a round trip checks the reader against an independent encryptor.
final class TestPhone: @unchecked Sendable {
    enum Behaviour {
        case normal
        /// No `C2`/`C3` in the OSE answer: the reader must SELECT Smart Tap 2.
        case olderPhone
        /// The GET DATA answer in this many parts, `9100` before each but the last.
        case chunks(Int)
        /// `9100` forever.
        case endlessMoreData
        /// GET DATA answers only this status word.
        case status(UInt16)
        /// One ciphertext bit flipped after the MAC was made.
        case badMAC
        /// The bundle is this zlib stream, flag `03`.
        case compressed([UInt8])
        /// GET DATA's exchange fails in the transport.
        case transportFailure
    }

    struct TransportFailure: Error, Equatable {}

    let behaviour: Behaviour
    let collectorPublicKey: P256.Signing.PublicKey
    let collectorID: UInt32
    let plaintext: [UInt8]
    let deviceNonce = [UInt8](repeating: 0x5A, count: 32)
    let phoneKey = try! P256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 0x11, count: 32))
    let iv: [UInt8] = Array(0xA0..<0xAC)

    private(set) var commands: [CommandAPDU] = []
    private(set) var signatureValid: Bool?
    private(set) var posCapabilities: [UInt8]?
    private var readerNonce: [UInt8] = []
    private var readerKey: [UInt8] = []
    private var signature: [UInt8] = []
    private var pending: [[UInt8]] = []

    init(behaviour: Behaviour = .normal, collector: SmartTapCollector, plaintext: [UInt8]) {
        self.behaviour = behaviour
        self.collectorPublicKey = collector.key.publicKey
        self.collectorID = collector.collectorID
        self.plaintext = plaintext
    }

    var phoneKeyCompressed: [UInt8] { Array(phoneKey.publicKey.compressedRepresentation) }

    /// The data of the OSE.VAS.01 answer.
    var oseAnswer: [UInt8] {
        var fields = BERTLVWriter.encode(tag: 0x50, value: Array("AndroidPay".utf8)) + BERTLVWriter.encode(tag: 0xC0, value: [0x00, 0x01])
        if case .olderPhone = behaviour {} else {
            fields += BERTLVWriter.encode(tag: 0xC2, value: deviceNonce) + BERTLVWriter.encode(tag: 0xC3, value: phoneKeyCompressed)
        }
        return BERTLVWriter.encode(tag: 0x6F, value: fields)
    }

    static func ext(_ name: String, _ payload: [UInt8]) -> NDEFRecord {
        NDEFRecord(tnf: .external, type: Array(name.utf8), payload: payload)
    }

    static func records(_ bytes: [UInt8]) throws -> [NDEFRecord] { try NDEFMessage(parsing: bytes).records }

    static func first(_ name: String, _ records: [NDEFRecord]) -> NDEFRecord? {
        records.first { $0.type == Array(name.utf8) }
    }

    func exchange(_ command: CommandAPDU) throws(TransportFailure) -> ResponseAPDU {
        commands.append(command)
        do {
            return try answer(command)
        } catch let failure as TransportFailure {
            throw failure
        } catch {
            return ResponseAPDU(data: [], statusWord: StatusWord(rawValue: 0x6A80))
        }
    }

    private func answer(_ command: CommandAPDU) throws -> ResponseAPDU {
        switch (command.cla, command.ins) {
        case (0x00, 0xA4):
            let mdn = NDEFRecord(tnf: .external, type: Array("mdn".utf8), id: Array("mdn".utf8), payload: [0x04] + deviceNonce)
            return ResponseAPDU(data: [0x00, 0x00, 0x00, 0x01] + NDEFMessage(records: [mdn]).encoded(), statusWord: .success)
        case (0x90, 0x53):
            let ngr = try #require(Self.first("ngr", try Self.records(command.data)))
            let inner = try Self.records(Array(ngr.payload.dropFirst(2)))
            let ses = try #require(Self.first("ses", inner))
            let cpr = try #require(Self.first("cpr", inner)).payload
            readerNonce = Array(cpr[0..<32])
            readerKey = Array(cpr[33..<66])
            let nested = try Self.records(Array(cpr[70...]))
            signature = Array(try #require(Self.first("sig", nested)).payload.dropFirst())
            let signed = readerNonce + deviceNonce + Array(try #require(Self.first("cld", nested)).payload.dropFirst()) + readerKey
            signatureValid = collectorPublicKey.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: signature), for: signed)
            let session = Self.ext("ses", Array(ses.payload.prefix(8)) + [0x01, 0x01])
            let nrs = Self.ext("nrs", NDEFMessage(records: [session, Self.ext("dpk", phoneKeyCompressed)]).encoded())
            return ResponseAPDU(data: NDEFMessage(records: [nrs]).encoded(), statusWord: .success)
        case (0x90, 0x50):
            let srq = try #require(Self.first("srq", try Self.records(command.data)))
            let inner = try Self.records(Array(srq.payload.dropFirst(2)))
            posCapabilities = Self.first("pcr", inner)?.payload
            let sessionID = Array(try #require(Self.first("ses", inner)).payload.prefix(8))
            switch behaviour {
            case .status(let sw): return ResponseAPDU(data: [], statusWord: StatusWord(rawValue: sw))
            case .transportFailure: throw TransportFailure()
            case .endlessMoreData: return ResponseAPDU(data: [0xD4], statusWord: StatusWord(rawValue: 0x9100))
            default: break
            }
            let data = try serviceResponse(sessionID: sessionID)
            let parts: Int
            if case .chunks(let count) = behaviour { parts = count } else { parts = 1 }
            let size = (data.count + parts - 1) / parts
            pending = stride(from: 0, to: data.count, by: size).map { Array(data[$0..<min($0 + size, data.count)]) }
            return nextPart()
        case (0x90, 0xC0):
            if case .endlessMoreData = behaviour { return ResponseAPDU(data: [0x00], statusWord: StatusWord(rawValue: 0x9100)) }
            return nextPart()
        default:
            return ResponseAPDU(data: [], statusWord: StatusWord(rawValue: 0x6D00))
        }
    }

    private func nextPart() -> ResponseAPDU {
        let part = pending.removeFirst()
        return ResponseAPDU(data: part, statusWord: pending.isEmpty ? .success : StatusWord(rawValue: 0x9100))
    }

    /// `srs` with the session and the sealed bundle, keys derived here from the public recipe.
    private func serviceResponse(sessionID: [UInt8]) throws -> [UInt8] {
        let reader = try P256.KeyAgreement.PublicKey(compressedRepresentation: readerKey)
        let shared = try phoneKey.sharedSecretFromKeyAgreement(with: reader)
        let info = readerNonce + deviceNonce + collectorID.bigEndianBytes + readerKey + signature
        let okm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: phoneKeyCompressed, sharedInfo: info, outputByteCount: 48)
            .withUnsafeBytes { Array($0) }
        var body = plaintext
        var flags: UInt8 = 0x01
        if case .compressed(let stream) = behaviour {
            body = stream
            flags = 0x03
        }
        var ciphertext = Array(try AES._CTR.encrypt(body, using: SymmetricKey(data: okm[0..<16]), nonce: AES._CTR.Nonce(nonceBytes: iv)))
        let mac = Array(HMAC<SHA256>.authenticationCode(for: iv + ciphertext, using: SymmetricKey(data: okm[16..<48])))
        if case .badMAC = behaviour { ciphertext[0] ^= 0x01 }
        let reb = Self.ext("reb", [flags] + iv + ciphertext + mac)
        let srs = Self.ext("srs", NDEFMessage(records: [Self.ext("ses", sessionID + [0x02, 0x01]), reb]).encoded())
        return NDEFMessage(records: [srs]).encoded()
    }
}
