import PassTapServer
import PassTapTestSupport
import Testing

/// `SocketServerError` is equal by code (`docs/architecture.md`, "Errors: equal by code").
@Suite struct SocketServerErrorEqualityTests {
    @Test func aSocketServerErrorIsEqualByCodeWhateverItsMessage() {
        #expect(
            followsEqualByCode(
                SocketServerError(.bindFailed, "cannot bind /run/a.sock"), sameCode: SocketServerError(.bindFailed, "cannot bind /run/b.sock"),
                otherCode: SocketServerError(.notASocket, "cannot bind /run/a.sock")))
    }
}
