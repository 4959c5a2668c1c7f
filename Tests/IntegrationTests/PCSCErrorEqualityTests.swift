import PassTapTestSupport
import Testing

@testable import PCSCBackend

/// `PCSCError` is equal by code (`docs/architecture.md`, "Errors: equal by code"); no pcscd needed.
@Suite struct PCSCErrorEqualityTests {
    @Test func aPCSCErrorIsEqualByCodeWhateverItsFunctionAndMessage() {
        #expect(
            followsEqualByCode(
                PCSCError(code: .removedCard, function: "SCardTransmit", message: "Card was removed."),
                sameCode: PCSCError(code: .removedCard, function: "SCardStatus", message: "another text"),
                otherCode: PCSCError(code: .timeout, function: "SCardTransmit", message: "Card was removed.")))
    }
}
