import PassTapProtocol
import PassTapTestSupport
import Testing

/// The protocol's errors are equal by code (`docs/architecture.md`, "Errors: equal by code").
@Suite struct ErrorEqualityTests {
    @Test func aStrictJSONErrorIsEqualByCodeWhateverItsOffset() {
        #expect(
            followsEqualByCode(
                StrictJSONError(.trailingComma, at: 3), sameCode: StrictJSONError(.trailingComma, at: 40),
                otherCode: StrictJSONError(.comment, at: 3)))
    }

    @Test func aJSONRPCErrorIsEqualByCodeWhateverItsMessageAndData() {
        #expect(
            followsEqualByCode(
                JSONRPCError(.transportError, "the card left", transportCode: "card_removed"),
                sameCode: JSONRPCError(.transportError, "timed out", transportCode: "timeout"),
                otherCode: JSONRPCError(.noCard, "the card left", transportCode: "card_removed")))
    }
}
