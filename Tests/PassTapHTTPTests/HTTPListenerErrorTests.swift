import Glibc
import NIOCore
import PassTapCore
import PassTapHTTP
import Testing

/// What `HTTPListenerError` tells the operator.
@Suite struct HTTPListenerErrorTests {
    let address = ListenAddress(host: "127.0.0.1", port: 8941)

    @Test func aRefusedAddressFamilyPointsToTheSystemdDropIn() {
        // What socket(2) returns under the shipped unit's RestrictAddressFamilies=.
        let refused = HTTPListenerError(code: .bindFailed, listener: "web", address: address, underlying: IOError(errnoCode: EAFNOSUPPORT, reason: "socket"))
        #expect(refused.description.hasPrefix("cannot listen for web on 127.0.0.1:8941 ([web] listen): "))
        #expect(refused.description.hasSuffix("install the drop-in tcp-listeners.conf and restart passtapd (docs/operations.md, \"The TCP listeners' drop-in\")"))
    }

    @Test func anAddressInUseSaysOnlyThat() {
        let inUse = HTTPListenerError(code: .bindFailed, listener: "metrics", address: address, underlying: IOError(errnoCode: EADDRINUSE, reason: "bind"))
        #expect(inUse.description.hasPrefix("cannot listen for metrics on 127.0.0.1:8941 ([metrics] listen): "))
        #expect(!inUse.description.contains("drop-in"))
        #expect(inUse.description.contains("Address already in use (errno 98): another process holds the port (ss -ltnp 'sport = :8941'"))
    }
}
