import NIOCore
import PassTapCore
import PassTapTestSupport
import Testing

import PassTapHTTP

/// `HTTPListenerError` is equal by code (`docs/architecture.md`, "Errors: equal by code").
@Suite struct HTTPListenerErrorEqualityTests {
    @Test func aHTTPListenerErrorIsEqualByCodeWhateverItsAddressAndCause() {
        let here = ListenAddress(host: "127.0.0.1", port: 9466)
        let there = ListenAddress(host: "::1", port: 9467)
        #expect(
            followsEqualByCode(
                HTTPListenerError(code: .bindFailed, listener: "metrics", address: here, underlying: ChannelError.ioOnClosedChannel),
                sameCode: HTTPListenerError(code: .bindFailed, listener: "metrics", address: there, underlying: ChannelError.alreadyClosed),
                otherCode: HTTPListenerError(code: .noLocalAddress, listener: "metrics", address: here, underlying: ChannelError.ioOnClosedChannel)))
    }
}
