import NIOCore
import PassTapCore
import PassTapTestSupport
import Testing

@testable import PassTapMetrics

/// `MetricsServerError` is equal by code (`docs/architecture.md`, "Errors: equal by code").
@Suite struct MetricsServerErrorEqualityTests {
    @Test func aMetricsServerErrorIsEqualByCodeWhateverItsAddressAndCause() {
        let here = ListenAddress(host: "127.0.0.1", port: 9466)
        let there = ListenAddress(host: "::1", port: 9467)
        #expect(
            followsEqualByCode(
                MetricsServerError(code: .bindFailed, address: here, underlying: ChannelError.ioOnClosedChannel),
                sameCode: MetricsServerError(code: .bindFailed, address: there, underlying: ChannelError.alreadyClosed),
                otherCode: MetricsServerError(code: .noLocalAddress, address: here, underlying: ChannelError.ioOnClosedChannel)))
    }
}
