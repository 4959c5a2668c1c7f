import Crypto
import ISO7816
import PassTapCore
import PassTapProtocol
import PassTapServer
import PassTapTestNetwork
import SmartTap
import Testing
import SmartTapSettings

@Suite(.timeLimit(.minutes(1))) struct MethodTests {
    @Test func statusReportsVersionProtocolInstanceUptimeAndReaders() async throws {
        try await ServerHarness.with { harness in
            let response = try await LineClient.with(path: harness.path) { client in
                try await client.call(#"{"jsonrpc":"2.0","id":1,"method":"status"}"#, expecting: StatusResult.self)
            }
            #expect(response.id == .number(1))
            let status = try response.outcome.get()
            #expect(status.version == "9.8.7-test")
            #expect(status.protocolVersion == PassTapProtocolVersion)
            #expect(status.instance == harness.daemon.instance)
            #expect(status.uptimeSeconds >= 0)
            #expect(status.readers.map(\.id) == ServerHarness.readers.map(\.id).sorted())
        }
    }

    @Test func statusAcceptsAnEmptyParamsObjectAndEchoesAStringID() async throws {
        try await ServerHarness.with { harness in
            let response = try await LineClient.with(path: harness.path) { client in
                try await client.call(
                    #"{"jsonrpc":"2.0","id":"abc","method":"status","params":{}}"#, expecting: StatusResult.self)
            }
            #expect(response.id == .string("abc"))
            #expect(try response.outcome.get().instance == harness.daemon.instance)
        }
    }

    @Test func readersListReturnsEveryReaderSortedByID() async throws {
        try await ServerHarness.with { harness in
            let response = try await LineClient.with(path: harness.path) { client in
                try await client.call(#"{"jsonrpc":"2.0","id":2,"method":"readers.list"}"#, expecting: ReadersListResult.self)
            }
            let readers = try response.outcome.get().readers
            #expect(readers == ServerHarness.readers.sorted { $0.id < $1.id })
        }
    }

    @Test func readersListAndStatusCountEachReadersTapsByOutcome() async throws {
        let ledger = HealthLedger(backends: ["pcsc"])
        let zeta = ReaderID.pcsc("Zeta Reader 00 00")
        let card = CardInfo(atr: "3B", uid: "04")
        ledger.observe(.readResult, zeta, .readResult(ReadResult(card: card, target: .memory, session: nil)))
        ledger.observe(.readResult, zeta, .readResult(ReadResult(card: card, target: .isoDep, session: SessionOutcome())))
        ledger.observe(.readResult, zeta, .readResult(ReadResult(card: card, target: .isoDep, session: SessionOutcome())))
        try await ServerHarness.with(health: HealthSources(ledger: ledger)) { harness in
            let (list, status) = try await LineClient.with(path: harness.path) { client in
                (
                    try await client.call(#"{"jsonrpc":"2.0","id":1,"method":"readers.list"}"#, expecting: ReadersListResult.self),
                    try await client.call(#"{"jsonrpc":"2.0","id":2,"method":"status"}"#, expecting: StatusResult.self)
                )
            }
            let expected: [ReaderID: TapCounts] = [
                zeta: TapCounts([.memoryCard: 1, .nothing: 2]), .pcsc("Alpha Reader 00 00"): TapCounts(),
            ]
            for readers in [try list.outcome.get().readers, try status.outcome.get().readers] {
                #expect(readers.count == 2)
                for reader in readers { #expect(reader.taps == expected[reader.id]) }
            }
        }
    }

    @Test func cardTransmitIsRefusedUnlessAllowed() async throws {
        try await ServerHarness.with { harness in
            let response = try await LineClient.with(path: harness.path) { client in
                try await client.call(
                    #"{"jsonrpc":"2.0","id":3,"method":"card.transmit","params":{"reader":"pcsc:Zeta Reader 00 00","apdu":"00A4040000"}}"#)
            }
            guard case .failure(let error) = response.outcome else {
                Issue.record("card.transmit succeeded with allow_transmit off")
                return
            }
            #expect(error.code == .transmitDisabled)
            #expect(error.reason == "transmit_disabled")
            #expect(error.message.contains("allow_transmit"))
            #expect(harness.backend.calls.isEmpty)
        }
    }

    @Test func cardTransmitSendsTheAPDUAndAnswersUpperCaseHex() async throws {
        let backend = FakeReaderBackend(readers: ServerHarness.readers) { command, _, _ in
            // Echo the command's last two bytes, then 9000.
            ResponseAPDU(data: Array(command.bytes.suffix(2)), statusWord: .success)
        }
        try await ServerHarness.with(backend: backend, configure: { $0.socket.allowTransmit = true }) { harness in
            let response = try await LineClient.with(path: harness.path) { client in
                try await client.call(
                    #"{"jsonrpc":"2.0","id":4,"method":"card.transmit","params":{"reader":"pcsc:Zeta Reader 00 00","apdu":"00 a4 04 00 02 ab cd","raw":true}}"#,
                    expecting: CardTransmitResult.self)
            }
            let result = try response.outcome.get()
            #expect(result.response == "ABCD")
            #expect(result.sw == "9000")
            #expect(result.meaning == StatusWord(rawValue: 0x9000).meaning)
            #expect(harness.backend.calls == [
                .init(command: [0x00, 0xA4, 0x04, 0x00, 0x02, 0xAB, 0xCD], raw: true, reader: .pcsc("Zeta Reader 00 00"))
            ])
        }
    }

    @Test(arguments: [
        (ReaderCommandError.noCard(.pcsc("Zeta Reader 00 00")), JSONRPCErrorCode.noCard, nil as String?),
        (.unknownReader(.pcsc("Zeta Reader 00 00")), .unknownReader, nil),
        (.readerUnavailable(.pcsc("Zeta Reader 00 00"), reason: nil), .readerUnavailable, nil),
        (.notISODep(.pcsc("Zeta Reader 00 00")), .notISODep, nil),
        (.cancelled, .cancelled, nil),
        (.transport(CardTransportError(.cardRemoved, "the card left the field")), .transportError, "card_removed"),
        (.shuttingDown, .shuttingDown, nil),
    ])
    func cardTransmitTurnsReaderErrorsIntoTheirCodes(
        failure: ReaderCommandError, code: JSONRPCErrorCode, transportCode: String?
    ) async throws {
        let backend = FakeReaderBackend(readers: ServerHarness.readers) { _, _, _ throws(ReaderCommandError) in throw failure }
        try await ServerHarness.with(backend: backend, configure: { $0.socket.allowTransmit = true }) { harness in
            let response = try await LineClient.with(path: harness.path) { client in
                try await client.call(
                    #"{"jsonrpc":"2.0","id":5,"method":"card.transmit","params":{"reader":"pcsc:Zeta Reader 00 00","apdu":"00B0000000"}}"#)
            }
            guard case .failure(let error) = response.outcome else {
                Issue.record("expected an error")
                return
            }
            #expect(error.code == code)
            #expect(error.reason == code.reason)
            #expect(error.data?.code == transportCode)
        }
    }

    @Test(arguments: [
        #"{"reader":"pcsc:Zeta Reader 00 00","apdu":"00A4G0"}"#,  // not hex
        #"{"reader":"pcsc:Zeta Reader 00 00","apdu":"00A"}"#,  // odd digits
        #"{"reader":"pcsc:Zeta Reader 00 00","apdu":"00"}"#,  // not an APDU
        #"{"reader":"pcsc:Zeta Reader 00 00"}"#,  // missing apdu
        #"{"reader":"pcsc:Zeta Reader 00 00","apdu":"00B0000000","rawr":true}"#,  // unknown member
    ])
    func cardTransmitWithBadParamsIsInvalidParams(params: String) async throws {
        try await ServerHarness.with(configure: { $0.socket.allowTransmit = true }) { harness in
            let response = try await LineClient.with(path: harness.path) { client in
                try await client.call(#"{"jsonrpc":"2.0","id":6,"method":"card.transmit","params":\#(params)}"#)
            }
            guard case .failure(let error) = response.outcome else {
                Issue.record("expected an error")
                return
            }
            #expect(error.code == .invalidParams)
            #expect(error.reason == "invalid_params")
            #expect(harness.backend.calls.isEmpty)
        }
    }
}

// MARK: vas.read errors

extension MethodTests {
    static let vasMerchants = ["pass.com.example.loyalty", "pass.com.example.coffee"]
    static let vasReader = ServerHarness.readers[0].id

    /// Sends one `vas.read` with `params` (VAS on with ``vasMerchants`` unless `vasEnabled` is
    /// false) and returns its error; records an issue if the call succeeded or left a read queued.
    func vasReadError(_ params: String, vasEnabled: Bool = true) async throws -> JSONRPCError? {
        var answer: JSONRPCResponse<VASReadResult>?
        try await ServerHarness.with(configure: { if vasEnabled { $0.enableVAS(merchants: Self.vasMerchants) } }) { harness in
            answer = try await LineClient.with(path: harness.path) { client in
                try await client.call(
                    #"{"jsonrpc":"2.0","id":7,"method":"vas.read","params":\#(params)}"#, expecting: VASReadResult.self)
            }
            #expect(harness.vasReads.waitingCount(on: Self.vasReader) == 0)
        }
        guard let answer, case .failure(let error) = answer.outcome else {
            Issue.record("expected an error for \(params)")
            return nil
        }
        #expect(answer.id == .number(7))
        #expect(error.reason == error.code.reason)
        return error
    }

    @Test func vasReadOfAnUnconfiguredMerchantNamesItAndTheConfiguredOnes() async throws {
        let error = try #require(
            await vasReadError(#"{"reader":"pcsc:Zeta Reader 00 00","merchants":["pass.com.example.coffee","pass.nope"]}"#))
        #expect(error.code == .invalidParams)
        #expect(error.reason == "invalid_params")
        #expect(error.message.contains("vas.read"))
        #expect(error.message.contains("pass.nope is not configured"))
        #expect(error.message.contains("configured: pass.com.example.loyalty, pass.com.example.coffee"))
    }

    @Test func vasReadWithAnEmptyMerchantsListIsInvalidParams() async throws {
        let error = try #require(await vasReadError(#"{"reader":"pcsc:Zeta Reader 00 00","merchants":[]}"#))
        #expect(error.code == .invalidParams)
        #expect(error.message.contains("merchants is empty"))
    }

    @Test(arguments: ["0", "-5", "600001"])
    func vasReadWithATimeoutOutOfRangeNamesTheRange(timeout: String) async throws {
        let error = try #require(await vasReadError(#"{"reader":"pcsc:Zeta Reader 00 00","timeout_ms":\#(timeout)}"#))
        #expect(error.code == .invalidParams)
        #expect(error.message.contains("timeout_ms must be from 1 to 600000"))
    }

    @Test(arguments: [#""5""#, "true", "[5]"])
    func vasReadWithATimeoutOfTheWrongTypeSaysAWholeNumber(timeout: String) async throws {
        let error = try #require(await vasReadError(#"{"reader":"pcsc:Zeta Reader 00 00","timeout_ms":\#(timeout)}"#))
        #expect(error.code == .invalidParams)
        #expect(error.message.contains("timeout_ms must be a whole number"))
        #expect(!error.message.contains("object"))
    }

    @Test func vasReadWithMerchantsNotAnArraySaysAnArray() async throws {
        let error = try #require(await vasReadError(#"{"reader":"pcsc:Zeta Reader 00 00","merchants":"pass.com.example.coffee"}"#))
        #expect(error.code == .invalidParams)
        #expect(error.message.contains("merchants must be an array"))
    }

    @Test func vasReadWithParamsNotAnObjectSaysAnObject() async throws {
        let error = try #require(await vasReadError(#"["pcsc:Zeta Reader 00 00"]"#))
        #expect(error.code == .invalidParams)
        #expect(error.message.contains("params must be an object with named members"))
    }

    @Test func vasReadWhileVASIsDisabledIsVASDisabled() async throws {
        let error = try #require(await vasReadError(#"{"reader":"pcsc:Zeta Reader 00 00"}"#, vasEnabled: false))
        #expect(error.code == .vasDisabled)
        #expect(error.code.rawValue == -32011)
        #expect(error.reason == "vas_disabled")
        #expect(error.message.contains("[vas] enabled = true"))
    }

    /// With Smart Tap alone, vas.read waits for the next phone (an Android phone's pass comes in
    /// `smarttap`), and has no merchant to name.
    @Test func vasReadWithOnlySmartTapOnWaitsForATapAndNamesNoMerchant() async throws {
        let collector = SmartTapCollector(collectorID: 20_180_608, keyVersion: 1, key: P256.Signing.PrivateKey())
        var answers: [JSONRPCError] = []
        try await ServerHarness.with(configure: { $0.smartTap = Configuration.SmartTap(enabled: true, collector: collector, keyPath: nil) }) { harness in
            try await LineClient.with(path: harness.path) { client in
                for params in [#"{"reader":"pcsc:Zeta Reader 00 00","timeout_ms":1}"#, #"{"reader":"pcsc:Zeta Reader 00 00","merchants":["pass.com.example.coffee"]}"#] {
                    let answer = try await client.call(#"{"jsonrpc":"2.0","id":7,"method":"vas.read","params":\#(params)}"#, expecting: VASReadResult.self)
                    if case .failure(let error) = answer.outcome { answers.append(error) }
                }
            }
        }
        #expect(answers.map(\.code) == [.timeout, .invalidParams])
        #expect(answers.last?.message.contains("pass.com.example.coffee is not configured") == true)
    }

    @Test func vasReadOnAnUnknownReaderIsUnknownReader() async throws {
        let error = try #require(await vasReadError(#"{"reader":"pcsc:Nowhere 00 00"}"#))
        #expect(error.code == .unknownReader)
        #expect(error.reason == "unknown_reader")
        #expect(error.message.contains("pcsc:Nowhere 00 00"))
    }

    @Test(arguments: [
        #"{"reader":"pcsc:Zeta Reader 00 00","timeout":5}"#,
        #"{"reader":"pcsc:Zeta Reader 00 00","merchant":["pass.com.example.coffee"]}"#,
    ])
    func vasReadWithAnUnknownParamNamesIt(params: String) async throws {
        let error = try #require(await vasReadError(params))
        #expect(error.code == .invalidParams)
        #expect(error.message.contains("unknown parameter"))
        #expect(error.message.contains("known: merchants, reader, timeout_ms"))
    }

    /// Absent params are decoded as `{}`: the required member is named, as when it is missing.
    @Test(arguments: ["null", "{}"])
    func vasReadWithoutParamsSaysReaderIsRequired(params: String) async throws {
        let error = try #require(await vasReadError(params))
        #expect(error.code == .invalidParams)
        #expect(error.message.contains("missing parameter 'reader'"), "\(error.message)")
    }

    @Test func vasReadWithNoTapTimesOutAndLeavesNothingQueued() async throws {
        let error = try #require(await vasReadError(#"{"reader":"pcsc:Zeta Reader 00 00","timeout_ms":1}"#))
        #expect(error.code == .timeout)
        #expect(error.code.rawValue == -32010)
        #expect(error.reason == "timeout")
        #expect(error.message.contains("no card arrived on pcsc:Zeta Reader 00 00 within 1 ms"))
    }
}
