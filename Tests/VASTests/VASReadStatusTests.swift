import ISO7816
import Testing
import VAS

/// Status word → status mapping (vas-protocol.md §4.2) and the stable raw values.
@Suite(.timeLimit(.minutes(1))) struct VASReadStatusTests {
    @Test(arguments: [
        (UInt16(0x9000), VASReadStatus.success),
        (0x6287, .dataNotActivated),
        (0x6984, .userIntervention),
        (0x6A83, .dataNotFound),
        (0x6A80, .incorrectData),
        (0x6700, .wrongLength),
        (0x6B00, .wrongParameters),
        (0x6340, .unsupportedVersion),
        (0x6A82, .unexpectedStatus),
        (0x6982, .unexpectedStatus),
        (0x6100, .unexpectedStatus),
        (0x9100, .unexpectedStatus),
        (0x0000, .unexpectedStatus),
    ])
    func statusWordMapsToItsStatus(raw: UInt16, status: VASReadStatus) {
        #expect(VASReadStatus(statusWord: StatusWord(rawValue: raw)) == status)
    }

    @Test(arguments: [
        (UInt16(0x6287), VASReadStatus.dataNotActivated), (0x6A83, .dataNotFound), (0x6B00, .wrongParameters), (0x6F00, .unexpectedStatus),
    ])
    func dataResponseCarriesStatusAndHexStatusWord(raw: UInt16, status: VASReadStatus) {
        let response = VASDataResponse(ResponseAPDU(data: [], statusWord: StatusWord(rawValue: raw)))
        #expect(response.status == status)
        #expect(response.statusWord.hex == String(raw, radix: 16, uppercase: true))
        #expect(response.cryptogram == nil)
    }

    @Test func rawValuesAreStableSnakeCase() {
        #expect(VASReadStatus.allCases.map(\.rawValue) == [
            "success", "data_not_activated", "user_intervention", "data_not_found", "incorrect_data", "wrong_length",
            "wrong_parameters", "unsupported_version", "unexpected_status", "malformed_response", "no_matching_key",
            "decrypt_failed", "stale", "replayed", "not_requested",
        ])
    }
}
