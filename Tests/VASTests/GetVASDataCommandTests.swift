import Crypto
import ISO7816
import Testing
import VAS
import Wallets

/// GET VAS DATA commands (vas-protocol.md §3).
@Suite(.timeLimit(.minutes(1))) struct GetVASDataCommandTests {
    /// A generator that replays fixed 64-bit values, so nonces are known.
    struct FixedGenerator: RandomNumberGenerator {
        var values: [UInt64]
        var index = 0
        mutating func next() -> UInt64 {
            defer { index += 1 }
            return values[index % values.count]
        }
    }

    static func passKit() throws -> VASMerchantRequest {
        try VASMerchantRequest(
            passTypeIdentifier: PassTypeIdentifier("pass.com.passkit.pksamples.nfcdemo"),
            url: "https://apple.com", filter: VASMerchantRequest.defaultFilter
        )
    }

    @Test func passTypeIdentifierHashIsThePublishedMerchantID() throws {
        #expect(try PassTypeIdentifier("pass.com.passkit.pksamples.nfcdemo").sha256.hexString
            == "03B57CDB3ECA0984BA9ABDC2FB45D86626D87B39D33C5C6DBBC313A6347A3146")
        #expect(try PassTypeIdentifier("pass.com.apple.wallet.vas.prodtest").sha256.hexString
            == "3CC70ED89A9D4354BE9830AB58D89C6FE7E62BACA939D2A6851DFC602EA798F7")
    }

    @Test func commandWithoutNonceIsTheKormaxTraceExample() throws {
        let command = try GetVASDataCommand(request: Self.passKit(), mode: .vasOnly, moreRequestsFollow: false, terminalNonce: nil)
        let expected = "80CA01014B"
            + "9F22020100"
            + "9F252003B57CDB3ECA0984BA9ABDC2FB45D86626D87B39D33C5C6DBBC313A6347A3146"
            + "9F260400800002"
            + "9F2B050100000000"
            + "9F291168747470733A2F2F6170706C652E636F6D"
            + "00"
        #expect(command.apdu.bytes.hexString == expected)
    }

    @Test func fixedNonceIsSentIn9F28AfterTheCapabilities() throws {
        var generator = FixedGenerator(values: [0x1122_3344_A1B2_C3D4])
        let command = GetVASDataCommand(request: try Self.passKit(), mode: .vasOnly, moreRequestsFollow: false, using: &generator)
        #expect(command.terminalNonce == [0xA1, 0xB2, 0xC3, 0xD4])
        let hex = command.apdu.bytes.hexString
        #expect(hex.hasPrefix("80CA010152"))
        #expect(hex.contains("9F2604008000029F2804A1B2C3D49F2B05"))
        let nodes = try BERTLVParser.parse(command.data)
        #expect(nodes.first(0x9F28)?.value == [0xA1, 0xB2, 0xC3, 0xD4])
    }

    @Test func urlOnlyUsesP2ZeroAndOmitsTheMerchantID() throws {
        let request = try VASMerchantRequest(passTypeIdentifier: nil, url: "https://example.com/join")
        let command = try GetVASDataCommand(request: request, mode: .vasOrPayment, moreRequestsFollow: false, terminalNonce: nil)
        #expect(command.apdu.p2 == 0x00)
        let nodes = try BERTLVParser.parse(command.data)
        #expect(nodes.first(0x9F25) == nil)
        #expect(nodes.first(0x9F29)?.value == Array("https://example.com/join".utf8))
        #expect(command.apdu.le == 256)
    }

    @Test(arguments: PassMode.allCases, [false, true])
    func capabilitiesCarryModeAndMoreBit(mode: PassMode, more: Bool) throws {
        let command = try GetVASDataCommand(request: Self.passKit(), mode: mode, moreRequestsFollow: more, terminalNonce: nil)
        let expectedModeBits: UInt8 = switch mode {
        case .vasOrPayment: 0
        case .vasAndPayment: 1
        case .vasOnly: 2
        }
        #expect(command.terminalCapabilities == [0x00, 0x80, 0x00, (more ? 0x80 : 0x00) | expectedModeBits])
    }

    @Test(arguments: 1...5)
    func moreBitIsSetOnAllButTheLastRequest(count: Int) throws {
        let requests = try (0..<count).map { try VASMerchantRequest(passTypeIdentifier: PassTypeIdentifier("pass.test.\($0)")) }
        var generator = FixedGenerator(values: [1, 2, 3, 4, 5])
        let commands = GetVASDataCommand.sequence(for: requests, mode: .vasAndPayment, using: &generator)
        #expect(commands.map(\.request) == requests)
        #expect(commands.map(\.moreRequestsFollow) == (0..<count).map { $0 < count - 1 })
        #expect(commands.map { $0.terminalCapabilities[3] } == (0..<count).map { $0 < count - 1 ? 0x81 : 0x01 })
        #expect(Set(commands.compactMap(\.terminalNonce)).count == count, "each request has its own nonce")
    }

    @Test func systemRandomNoncesAreFourBytes() throws {
        let commands = GetVASDataCommand.sequence(for: [try Self.passKit()], mode: .vasOnly)
        #expect(commands.first?.terminalNonce?.count == 4)
    }

    @Test(arguments: [64, 65, 100])
    func urlsOver64CharactersAreRefused(length: Int) throws {
        let url = "https://" + String(repeating: "a", count: length - 8)
        if length <= 64 {
            #expect(try VASMerchantRequest(passTypeIdentifier: nil, url: url).url == url)
        } else {
            let error = #expect(throws: VASCommandError.self) { try VASMerchantRequest(passTypeIdentifier: nil, url: url) }
            #expect(error?.code == .invalidURL)
            #expect(error?.detail.contains("\(length)") == true)
        }
    }

    @Test(arguments: [[UInt8](), [0x01, 0, 0, 0], [0x00, 0, 0, 0, 0], [0x02, 0, 0, 0, 0], [0x01, 0, 0, 0, 0, 0]])
    func filtersOtherThanFiveBytesStartingWith01AreRefused(filter: [UInt8]) {
        let error = #expect(throws: VASCommandError.self) { try VASMerchantRequest(passTypeIdentifier: nil, filter: filter) }
        #expect(error?.code == .invalidFilter)
    }

    @Test(arguments: ["", "pass with space", "pass.é", String(repeating: "p", count: 256)])
    func unusablePassTypeIdentifiersAreRefused(value: String) {
        let error = #expect(throws: VASCommandError.self) { try PassTypeIdentifier(value) }
        #expect(error?.code == .invalidPassTypeIdentifier)
    }

    @Test func nonceOfTheWrongLengthIsRefused() throws {
        let request = try Self.passKit()
        let error = #expect(throws: VASCommandError.self) {
            try GetVASDataCommand(request: request, mode: .vasOnly, moreRequestsFollow: false, terminalNonce: [1, 2, 3])
        }
        #expect(error?.code == .invalidNonce)
    }
}
