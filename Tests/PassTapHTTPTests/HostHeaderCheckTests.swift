import PassTapCore
import Testing

@testable import PassTapHTTP

/// The `Host` rule for listeners that are not on a loopback address.
@Suite struct HostHeaderCheckTests {
    @Test func aListenerOnAnAddressAcceptsThatAddressAndLoopbackOnly() {
        let check = HostHeaderCheck(listen: ListenAddress(host: "192.0.2.10", port: 9466))
        #expect(check.accepts("192.0.2.10:9466", port: 9466))
        #expect(check.accepts("localhost:9466", port: 9466))
        #expect(!check.accepts("192.0.2.11:9466", port: 9466))
        #expect(!check.accepts("metrics.example:9466", port: 9466))
        let v6 = HostHeaderCheck(listen: ListenAddress(host: "2001:db8::1", port: 9466))
        #expect(v6.accepts("[2001:DB8:0::1]:9466", port: 9466))
        #expect(!v6.accepts("[2001:db8::2]:9466", port: 9466))
    }

    @Test func aWildcardListenerAcceptsAnyAddressButNoName() {
        for host in ["0.0.0.0", "::"] {
            let check = HostHeaderCheck(listen: ListenAddress(host: host, port: 80))
            #expect(check.accepts("198.51.100.7", port: 80))
            #expect(check.accepts("[2001:db8::7]:80", port: 80))
            #expect(!check.accepts("metrics.example", port: 80))
            #expect(!check.accepts("198.51.100.7:81", port: 80))
        }
    }
}
