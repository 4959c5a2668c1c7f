import PassTapTestSupport
import Testing

@testable import NFCBackend

/// `NFCError` is equal by code (`docs/architecture.md`, "Errors: equal by code").
@Suite struct NFCErrorEqualityTests {
    @Test func anNFCErrorIsEqualByCodeWhateverItsFunctionAndMessage() {
        #expect(
            followsEqualByCode(
                NFCError(code: .io, function: "nfc_initiator_transceive_bytes", message: "Input / Output Error"),
                sameCode: NFCError(code: .io, function: "nfc_open", message: "another text"),
                otherCode: NFCError(code: .timeout, function: "nfc_initiator_transceive_bytes", message: "Input / Output Error")))
    }
}
