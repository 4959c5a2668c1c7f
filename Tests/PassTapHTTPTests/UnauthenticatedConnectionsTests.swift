import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOPosix
import PassTapTestNetwork
import PassTapTestSupport
import Testing

@testable import PassTapHTTP

#if canImport(Glibc)
import Glibc
#endif

/// The web listener's pool of connections that have not authenticated (docs/web.md, "Limits
/// against other local processes"):
/// its counting, and a real listener closing one user's connection over its share at once.
@Suite(.timeLimit(.minutes(1))) struct UnauthenticatedConnectionsTests {
    static let logger = Logger(label: "passtap.test.http")

    static let routes = HTTPRoutes { _ in .text(.ok, "page\n") }

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
            try await waitUntil("the pool to hold both idle connections") { pool.count(of: .uid(getuid())) >= 2 }
            for _ in 0..<3 {
                let refused = try await RawHTTP.answerOrNothing("GET / HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: address)
                #expect(refused.isEmpty, "a connection over the user's share was answered: \(refused)")
            }
            #expect(pool.count == 2)
            try await first.close()
            try await waitUntil("the first connection's place to be given back") { pool.count <= 1 }
            let page = try await RawHTTP.answer("GET / HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: address)
            #expect(page.statusLine == "HTTP/1.1 200 OK")
            try await second.close()
        }
    }
}
