import Crypto
import Foundation
import ISO7816
import Testing

@testable import SmartTap

/// The whole read against ``TestPhone``, whose sealing is written independently of SmartTap's.
@Suite(.timeLimit(.minutes(1))) struct SmartTapReaderTests {
    /// A loyalty pass (issuer 3000, object 0102030405060708, value `4444-5555`) and a customer
    /// record, as NDEF (made with Python for these tests; see Vectors/SOURCES.md).
    static let plaintext = try! [UInt8](hex: "d4036261737694010669040000000bb814021f6c799403096f696404010203040506070859010a01546e00343434342d3535353554032e63757394031163696404000102030405060708090a0b0c0d0e0f54031163757404101112131415161718191a1b1c1d1e1f")
    /// `plaintext` through Python's `zlib.compress`.
    static let compressed = try! [UInt8](hex: "789cbbc29c94585c3685912d93858181817b8708937c4ee51466cefccc1416462666165636768e48462ec6903c061320d03505821066bde4d2e229cc82c940450c30559c5cdc3cbc7cfc2140e1d2121601412161115131710949296919593979003ba211b9")
    /// 200 000 zero bytes through Python's `zlib.compress(level 9)`: 217 bytes.
    static let bomb = try! [UInt8](hex: "78daedc13101000000c2a0f54f6d067fa00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000080d7000d6d0001")

    static let collector = SmartTapCollector(
        collectorID: 20_180_608, keyVersion: 1, key: try! P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0x22, count: 32)))

    static func read(_ behaviour: TestPhone.Behaviour, mode: SmartTapMode = .passOnly, limits: SmartTapLimits = .standard) throws -> (SmartTapOutcome, TestPhone) {
        let phone = TestPhone(behaviour: behaviour, collector: collector, plaintext: plaintext)
        let reader = SmartTapReader(collector: collector, limits: limits, random: { count in
            (0..<count).map { UInt8(truncatingIfNeeded: $0 &+ count) }
        })
        let outcome = try reader.run(oseAnswer: phone.oseAnswer, mode: mode, exchange: phone.exchange)
        return (outcome, phone)
    }

    static let loyalty = SmartTapServiceObject(type: .loyalty, issuerID: "3000", objectID: "0102030405060708", value: "4444-5555")

    @Test func aVersion21PhoneGivesItsPass() throws {
        let (outcome, phone) = try Self.read(.normal, mode: .passOverPayment)
        #expect(outcome.status == .success, "\(outcome.problem ?? "")")
        #expect(outcome.objects == [Self.loyalty])
        #expect(outcome.customerID == "000102030405060708090A0B0C0D0E0F")
        #expect(outcome.tapID == "101112131415161718191A1B1C1D1E1F")
        #expect(outcome.version == "0001")
        #expect(outcome.sw == .success)
        #expect(phone.commands.map(\.ins) == [0x53, 0x50])
        #expect(phone.signatureValid == true)
        #expect(phone.posCapabilities == [0x41, 0x00, 0x00, 0x00, 0x08])
    }

    @Test func anOlderPhoneIsAskedForItsNonce() throws {
        let (outcome, phone) = try Self.read(.olderPhone)
        #expect(outcome.status == .success, "\(outcome.problem ?? "")")
        #expect(outcome.objects == [Self.loyalty])
        #expect(phone.commands.first?.bytes == [0x00, 0xA4, 0x04, 0x00, 0x09, 0xA0, 0x00, 0x00, 0x04, 0x76, 0xD0, 0x00, 0x01, 0x11, 0x00])
        #expect(phone.commands.map(\.ins) == [0xA4, 0x53, 0x50])
    }

    @Test func getMoreDataFollows9100() throws {
        let (outcome, phone) = try Self.read(.chunks(3))
        #expect(outcome.status == .success, "\(outcome.problem ?? "")")
        #expect(outcome.objects == [Self.loyalty])
        #expect(phone.commands.suffix(2).map(\.bytes) == [[0x90, 0xC0, 0x00, 0x00, 0x00], [0x90, 0xC0, 0x00, 0x00, 0x00]])
    }

    @Test func endless9100StopsAtTheLimit() throws {
        let limits = SmartTapLimits(maxMoreDataRounds: 5)
        let (outcome, phone) = try Self.read(.endlessMoreData, limits: limits)
        #expect(outcome.status == .malformedResponse)
        #expect(phone.commands.filter { $0.ins == 0xC0 }.count == 5)
        let (bytesOutcome, bytesPhone) = try Self.read(.endlessMoreData, limits: SmartTapLimits(maxMoreDataRounds: 1000, maxResponseBytes: 100))
        #expect(bytesOutcome.status == .malformedResponse)
        #expect(bytesPhone.commands.filter { $0.ins == 0xC0 }.count == 100)
    }

    @Test(arguments: [
        (UInt16(0x9001), SmartTapStatus.noPass, UInt8?.none),
        (0x9302, .userMustChoose, nil),
        (0x9200, .retry, nil),
        (0x9406, .refused, 0x06),
        (0x6A82, .malformedResponse, nil),
    ])
    func statusWordsMapToStatuses(sw: UInt16, status: SmartTapStatus, code: UInt8?) throws {
        let (outcome, _) = try Self.read(.status(sw))
        #expect(outcome.status == status)
        #expect(outcome.sw == StatusWord(rawValue: sw))
        #expect(outcome.code == code)
        #expect(outcome.objects.isEmpty)
        #expect(outcome.problem != nil)
    }

    @Test func aBadMACIsNotDecrypted() throws {
        let (outcome, _) = try Self.read(.badMAC)
        #expect(outcome.status == .badMAC)
        #expect(outcome.objects.isEmpty)
        #expect(outcome.customerID == nil)
    }

    @Test func aCompressedBundleIsInflated() throws {
        let (outcome, _) = try Self.read(.compressed(Self.compressed))
        #expect(outcome.status == .success, "\(outcome.problem ?? "")")
        #expect(outcome.objects == [Self.loyalty])
    }

    @Test func aZipBombStopsAtTheInflateLimit() throws {
        #expect(Self.bomb.count == 217)
        let (outcome, _) = try Self.read(.compressed(Self.bomb))
        #expect(outcome.status == .malformedResponse)
        #expect(outcome.problem == "the record bundle inflates to more than 65536 bytes")
    }

    @Test func inflateRefusesTruncatedAndTrailingBytes() throws {
        #expect(try SmartTapInflater.inflate(Self.compressed, limit: 1000) == Self.plaintext)
        #expect(throws: SmartTapFailure.self) { try SmartTapInflater.inflate(Array(Self.compressed.dropLast(5)), limit: 1000) }
        #expect(throws: SmartTapFailure.self) { try SmartTapInflater.inflate(Self.compressed + [0x00], limit: 1000) }
        #expect(throws: SmartTapFailure.self) { try SmartTapInflater.inflate(Self.compressed, limit: Self.plaintext.count - 1) }
        #expect(try SmartTapInflater.inflate(Self.compressed, limit: Self.plaintext.count) == Self.plaintext)
    }

    @Test func transportFailuresAreRethrownUnchanged() {
        #expect(throws: TestPhone.TransportFailure()) { try Self.read(.transportFailure) }
    }

    @Test func anAppleAnswerIsNotRead() throws {
        let phone = TestPhone(collector: Self.collector, plaintext: Self.plaintext)
        let apple = BERTLVWriter.encode(tag: 0x6F, value: BERTLVWriter.encode(tag: 0x50, value: Array("ApplePay".utf8)))
        let outcome = try SmartTapReader(collector: Self.collector).run(oseAnswer: apple, mode: .passOnly, exchange: phone.exchange)
        #expect(outcome.status == .malformedResponse)
        #expect(phone.commands.isEmpty)
    }
}
