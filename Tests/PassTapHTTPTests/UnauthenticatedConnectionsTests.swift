import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOPosix
import PassTapTestSupport
import Testing

@testable import PassTapHTTP

#if canImport(Glibc)
import Glibc
#endif

/// The web listener's pool of connections that have not authenticated (issue 29, section 3):
/// the kernel's answer about a peer's user, the pool's counting, and a real listener closing one
/// user's connection over its share at once.
@Suite(.timeLimit(.minutes(1))) struct UnauthenticatedConnectionsTests {
    static let logger = Logger(label: "passtap.test.http")

    static let routes = HTTPRoutes { _ in .text(.ok, "page\n") }

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
            let uid = owners.uid(ofPeer: try #require(client.localAddress), local: try #require(client.remoteAddress))
            #expect(uid == .success(getuid()), "\(host): \(uid)")
            try await client.close()
            try await listener.close()
        }
    }

    /// A query for a connection no socket has is answered, not waited for: the peer is gone.
    @Test func aPeerThatIsGoneIsSaidSoAtOnce() throws {
        let owners = LoopbackPeerOwner()
        let nowhere = try SocketAddress(ipAddress: "127.0.0.1", port: 9)
        let clock = ContinuousClock()
        var answer: Result<UInt32, LoopbackPeerOwnerError>?
        let took = clock.measure { answer = owners.uid(ofPeer: nowhere, local: nowhere) }
        #expect(answer == .failure(LoopbackPeerOwnerError(.peerGone)), "\(String(describing: answer))")
        #expect(took < .milliseconds(100))
    }

    /// One owner's share, the pool's total, and a connection that authenticates or closes giving
    /// its place back. (An embedded channel has no peer: its owner is unknown.)
    @Test func theSharesAndThePoolAreCountedAndGivenBack() throws {
        let pool = UnauthenticatedConnections(listener: "web", limit: 3, perUserLimit: { 2 }, logger: Self.logger)
        let channels = (0..<3).map { _ in EmbeddedChannel() }
        #expect(pool.admit(channels[0]) && pool.admit(channels[1]))
        #expect(!pool.admit(channels[2]), "the unknown owner's share is 2")
        #expect(pool.count(of: .unknown) == 2 && pool.count == 2)
        pool.authenticated(channels[0])
        #expect(pool.count == 1)
        #expect(pool.admit(channels[2]))
        pool.authenticated(channels[0])  // not counted any more: nothing happens
        #expect(pool.count == 2)
        _ = try channels[1].finish()
        #expect(pool.count == 1)

        let full = UnauthenticatedConnections(listener: "web", limit: 1, perUserLimit: { 5 }, logger: Self.logger)
        #expect(full.admit(EmbeddedChannel()))
        #expect(!full.admit(EmbeddedChannel()), "the pool holds 1 in all")
    }

    /// Through a real listener: this user's third idle connection is closed as soon as it is
    /// accepted, unanswered; once one of its two closes, a page is served again.
    @Test func aUsersConnectionOverItsShareIsClosedAtOnce() async throws {
        let pool = UnauthenticatedConnections(listener: "web", limit: 8, perUserLimit: { 2 }, logger: Self.logger)
        try await withListener(Self.routes, unauthenticated: pool) { address in
            let port = try #require(address.port)
            let first = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: address).get()
            let second = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: address).get()
            try await withDeadline("the pool to hold both idle connections") {
                while pool.count(of: .uid(getuid())) < 2 { try await Task.sleep(for: .milliseconds(5)) }
            }
            for _ in 0..<3 {
                let refused = try await RawHTTP.answerOrNothing("GET / HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: address)
                #expect(refused.isEmpty, "a connection over the user's share was answered: \(refused)")
            }
            #expect(pool.count == 2)
            try await first.close()
            try await withDeadline("the first connection's place to be given back") {
                while pool.count > 1 { try await Task.sleep(for: .milliseconds(5)) }
            }
            let page = try await RawHTTP.answer("GET / HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: address)
            #expect(page.statusLine == "HTTP/1.1 200 OK")
            try await second.close()
        }
    }
}
