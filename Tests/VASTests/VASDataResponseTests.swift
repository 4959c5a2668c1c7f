import ISO7816
import Testing
import VAS

/// GET VAS DATA answers (vas-protocol.md §4.1): `70 { 9F2A token, 9F27 cryptogram }`.
@Suite(.timeLimit(.minutes(1))) struct VASDataResponseTests {
    static func cryptogram(length: Int = 78) throws -> [UInt8] {
        Array((try [UInt8](hex: VASDecryptorTests.vector1) + [UInt8](repeating: 0x5A, count: 200)).prefix(length))
    }

    static func answer(_ value: [UInt8], sw: StatusWord = .success) -> ResponseAPDU {
        ResponseAPDU(data: BERTLVWriter.encode(tag: 0x70, value: value), statusWord: sw)
    }

    @Test func theTraceAnswerParses() throws {
        let bytes = try [UInt8](hex: "70549F2A009F274E" + VASDecryptorTests.vector1)
        let response = VASDataResponse(ResponseAPDU(data: bytes, statusWord: .success))
        #expect(response.status == .success)
        #expect(response.mobileToken == [])
        #expect(response.cryptogram?.bytes == (try Self.cryptogram()))
        #expect(response.cryptogram?.keyID.hex == TestVectors.passKitKeyID)
        #expect(response.problem == nil)
    }

    @Test func aLongTokenNeedingLongFormLengthsParses() throws {
        let value = BERTLVWriter.encode(tag: 0x9F2A, value: [UInt8](repeating: 7, count: 60))
            + BERTLVWriter.encode(tag: 0x9F27, value: try Self.cryptogram(length: 120))
        let response = VASDataResponse(Self.answer(value))
        #expect(value.count > 127)
        #expect(response.status == .success)
        #expect(response.mobileToken?.count == 60)
        #expect(response.cryptogram?.bytes.count == 120)
    }

    @Test func tagOrderInsideTheTemplateDoesNotMatter() throws {
        let value = BERTLVWriter.encode(tag: 0x9F27, value: try Self.cryptogram()) + BERTLVWriter.encode(tag: 0x9F2A, value: [1])
        let response = VASDataResponse(Self.answer(value))
        #expect(response.status == .success)
        #expect(response.mobileToken == [1])
    }

    @Test(arguments: [55, 121, 4, 0])
    func impossibleCryptogramLengthsAreMalformed(length: Int) throws {
        let response = VASDataResponse(Self.answer(BERTLVWriter.encode(tag: 0x9F27, value: try Self.cryptogram(length: length))))
        #expect(response.status == .malformedResponse)
        #expect(response.problem?.contains("\(length) bytes") == true)
        #expect(response.cryptogram == nil)
    }

    @Test(arguments: [56, 120])
    func boundaryCryptogramLengthsAreAccepted(length: Int) throws {
        let response = VASDataResponse(Self.answer(BERTLVWriter.encode(tag: 0x9F27, value: try Self.cryptogram(length: length))))
        #expect(response.status == .success)
    }

    @Test func aMissingCryptogramIsMalformedInFullVASButFineInURLOnly() {
        let answer = Self.answer(BERTLVWriter.encode(tag: 0x9F2A, value: []))
        #expect(VASDataResponse(answer).status == .malformedResponse)
        #expect(VASDataResponse(answer).problem?.contains("9F27") == true)
        #expect(VASDataResponse(answer, expectsCryptogram: false).status == .success)
        #expect(VASDataResponse(ResponseAPDU(data: [], statusWord: .success), expectsCryptogram: false).status == .success)
        #expect(VASDataResponse(ResponseAPDU(data: [], statusWord: .success)).status == .malformedResponse)
    }

    @Test func everyTruncationOfTheTraceIsMalformedNeverATrap() throws {
        let bytes = try [UInt8](hex: "70549F2A009F274E" + VASDecryptorTests.vector1)
        for length in 1..<bytes.count {
            let response = VASDataResponse(ResponseAPDU(data: Array(bytes.prefix(length)), statusWord: .success))
            #expect(response.status == .malformedResponse, "prefix of \(length) bytes")
        }
    }

    /// A template with a second cryptogram (or token) is ambiguous: the daemon must not pick one.
    @Test func aRepeatedCryptogramOrTokenIsMalformed() throws {
        let cryptogram = BERTLVWriter.encode(tag: 0x9F27, value: try Self.cryptogram())
        let token = BERTLVWriter.encode(tag: 0x9F2A, value: [])
        for value in [token + cryptogram + cryptogram, token + token + cryptogram] {
            let response = VASDataResponse(Self.answer(value))
            #expect(response.status == .malformedResponse)
            #expect(response.cryptogram == nil)
            #expect(response.problem?.contains("objects; one is allowed") == true, "\(response.problem ?? "")")
        }
    }

    @Test(arguments: ["6F03010203", "70039F2A00" + "9F2A00", "70009F2A00"])
    func anythingButOneTemplateIsMalformed(hex: String) throws {
        let response = VASDataResponse(ResponseAPDU(data: try [UInt8](hex: hex), statusWord: .success))
        #expect(response.status == .malformedResponse)
    }
}
