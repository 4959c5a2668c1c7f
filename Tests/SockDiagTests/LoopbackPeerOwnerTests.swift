import NIOCore
import NIOPosix
import PassTapTestSupport
import SockDiag
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The kernel's answer about who owns the other end of a loopback TCP connection (docs/web.md,
/// "Limits against other local processes"), asked as the web listener asks it.
@Suite(.timeLimit(.minutes(1))) struct LoopbackPeerOwnerTests {
    /// A connection to a new listener on `host`; returns the client's channel and the listener's.
    static func connected(on host: String) async throws -> (client: any Channel, listener: any Channel) {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: host, port: 0).get()
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: try #require(listener.localAddress)).get()
        return (client, listener)
    }

    /// The kernel names this process's user as the owner of its loopback connection, over IPv4
    /// and (where the system has it) IPv6, asked from the accepting side as the listener asks.
    @Test func theKernelNamesTheUserOfALoopbackPeer() async throws {
        let owners = LoopbackPeerOwner()
        for host in ["127.0.0.1", "::1"] {
            guard let (client, listener) = try? await Self.connected(on: host) else {
                #expect(host == "::1", "no loopback connection on \(host)")
                continue
            }
            // The listener's view: its peer is the client's local address.
            let peer = try #require(client.localAddress), local = try #require(client.remoteAddress)
            let uid = owners.uid(
                ofPeer: (try #require(peer.ipAddress), try #require(peer.port)), local: (try #require(local.ipAddress), try #require(local.port)))
            #expect(uid == .success(getuid()), "\(host): \(uid)")
            try await client.close()
            try await listener.close()
        }
    }

    /// A query for a connection no socket has is answered, not waited for: the peer is gone.
    @Test func aPeerThatIsGoneIsSaidSoAtOnce() throws {
        let owners = LoopbackPeerOwner()
        let nowhere = (host: "127.0.0.1", port: 9)
        let clock = ContinuousClock()
        var answer: Result<UInt32, LoopbackPeerOwnerError>?
        let took = clock.measure { answer = owners.uid(ofPeer: nowhere, local: nowhere) }
        #expect(answer == .failure(LoopbackPeerOwnerError(.peerGone)), "\(String(describing: answer))")
        #expect(took < .milliseconds(100))
    }

    /// Text that is not an address literal is refused before anything is asked.
    @Test func anAddressThatIsNotALiteralIsRefused() {
        let owners = LoopbackPeerOwner()
        #expect(owners.uid(ofPeer: ("localhost", 1), local: ("127.0.0.1", 2)) == .failure(LoopbackPeerOwnerError(.notTCP)))
        #expect(owners.uid(ofPeer: ("::1", 1), local: ("127.0.0.1", 2)) == .failure(LoopbackPeerOwnerError(.notTCP)))
    }

    /// `LoopbackPeerOwnerError` is equal by code (`docs/architecture.md`, "Errors: equal by code").
    @Test func aLoopbackPeerOwnerErrorIsEqualByCodeWhateverItsCError() {
        #expect(
            followsEqualByCode(
                LoopbackPeerOwnerError(.queryFailed, errno: EPERM), sameCode: LoopbackPeerOwnerError(.queryFailed, errno: EINVAL),
                otherCode: LoopbackPeerOwnerError(.socketUnavailable, errno: EPERM)))
    }
}
