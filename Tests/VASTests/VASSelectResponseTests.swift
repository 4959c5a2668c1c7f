import ISO7816
import Testing
import VAS

/// SELECT `OSE.VAS.01` answers (vas-protocol.md §2.2, §2.3).
@Suite(.timeLimit(.minutes(1))) struct VASSelectResponseTests {
    static let label = "50084170706C65506179"
    static let version = "9F21020100"
    static let nonce = "9F2404E9CAEDE3"
    static let capabilities = "9F23040000003E"

    static func fci(_ parts: [String]) throws -> [UInt8] {
        let body = try [UInt8](hex: parts.joined())
        return BERTLVWriter.encode(tag: 0x6F, value: body)
    }

    @Test func selectCommandIsTheDocumentedBytes() {
        #expect(VASApplication.selectCommand.bytes.hexString == "00A404000A4F53452E5641532E303100")
        #expect(VASApplication.aid.hex == "4F53452E5641532E3031")
    }

    @Test func applePayTraceParses() throws {
        let data = try [UInt8](hex: "6F1D50084170706C655061799F210201009F2404E9CAEDE39F23040000003E")
        let response = try VASSelectResponse(ResponseAPDU(data: data, statusWord: .success))
        #expect(response.wallet == .applePay)
        #expect(response.version == [0x01, 0x00])
        #expect(response.nonce == [0xE9, 0xCA, 0xED, 0xE3])
        #expect(response.capabilities?.hex == "0000003E")
        #expect(response.capabilities?.bitNames == [
            "encrypted", "vas_may_be_skipped", "vas_may_be_performed", "payment_may_be_skipped", "payment_may_be_performed",
        ])
        #expect(response.vasMayBePerformed)
    }

    @Test(arguments: [
        [label, version, nonce, capabilities], [capabilities, nonce, version, label],
        [nonce, label, capabilities, version], [version, capabilities, label],
    ])
    func tagOrderDoesNotMatter(parts: [String]) throws {
        let response = try VASSelectResponse(data: Self.fci(parts))
        #expect(response.wallet == .applePay)
        #expect(response.capabilities?.contains(.vasMayBePerformed) == true)
        #expect(response.nonce == (parts.contains(Self.nonce) ? [0xE9, 0xCA, 0xED, 0xE3] : nil))
    }

    @Test func androidPayIsReportedWithoutAppleFields() throws {
        let response = try VASSelectResponse(data: Self.fci(["500A416E64726F6964506179"]))
        #expect(response.wallet == .androidPay)
        #expect(response.wallet.label == "AndroidPay")
        #expect(response.version == nil)
        #expect(response.capabilities == nil)
        #expect(!response.vasMayBePerformed)
    }

    /// A Google Wallet phone's whole answer as kormax/google-smart-tap's README publishes it
    /// (Vectors/SOURCES.md): its Smart Tap directory nests five levels (6F A5 BF0C 61 73), which
    /// a parser bounded at four levels refused, so no Android phone was told from an iPhone.
    @Test func aPublishedAndroidAnswerWithItsSmartTapDirectoryParses() throws {
        let data = try [UInt8](hex: """
            6F8184500A416E64726F6964506179C0020001C108CC00000000008080C22056D2EC8F857F0049AA54F1CA1DE2791B5693A7014E6E4565D5644B1C2A3051\
            36C32103DFEE38DBDB68A607383AD622640B180CC7E27D796B4E788C40E5D994291C71FCA523BF0C20611E4F09A000000476D0000111870101730EDF6D02\
            0000DF4D020001DF620103
            """)
        let response = try VASSelectResponse(ResponseAPDU(data: data, statusWord: .success))
        #expect(response.wallet == .androidPay)
        #expect(!response.vasMayBePerformed)
    }

    @Test func otherWalletsKeepTheirLabel() throws {
        let response = try VASSelectResponse(data: Self.fci(["500D" + Array("SamsungWallet".utf8).hexString, Self.capabilities]))
        #expect(response.wallet == .other("SamsungWallet"))
        #expect(response.capabilities?.hex == "0000003E")
        #expect(!response.vasMayBePerformed)
    }

    @Test func vasNotOfferedIsAValueNotAnError() throws {
        let response = try VASSelectResponse(data: Self.fci([Self.label, Self.version, "9F230400000016"]))
        #expect(response.capabilities?.flags == [.encrypted, .vasMayBeSkipped, .paymentMayBeSkipped])
        #expect(!response.vasMayBePerformed)
    }

    @Test(arguments: [
        ([label, nonce, capabilities], VASResponseError.Code.missingVersion),
        ([label, "9F21020200", capabilities], .unsupportedVersion),
        ([label, "9F2103010000", capabilities], .unsupportedVersion),
        ([label, version, nonce], .missingCapabilities),
        ([label, version, "9F2303000008"], .invalidCapabilities),
        ([version, capabilities], .missingWalletLabel),
    ])
    func appleAnswersBreakingARuleAreRefusedByCode(parts: [String], code: VASResponseError.Code) throws {
        let data = try Self.fci(parts)
        let error = #expect(throws: VASResponseError.self) { try VASSelectResponse(data: data) }
        #expect(error?.code == code)
    }

    @Test func aRefusedSelectNamesTheStatusWord() {
        let error = #expect(throws: VASResponseError.self) {
            try VASSelectResponse(ResponseAPDU(data: [], statusWord: .fileNotFound))
        }
        #expect(error?.code == .selectRejected)
        #expect(error?.description.contains("6A82") == true)
    }

    @Test(arguments: ["", "6F", "6F1D5008", "701D50084170706C6550617900", "6F0A50084170706C655061796F00"])
    func dataThatIsNotOneFCIIsRefused(hex: String) throws {
        let data = try [UInt8](hex: hex)
        let error = #expect(throws: VASResponseError.self) { try VASSelectResponse(data: data) }
        #expect(error?.code == .notFCI || error?.code == .malformedTLV)
    }
}
