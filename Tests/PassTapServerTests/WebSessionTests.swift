import ForwardSettings
import WebSettings
import Foundation
import InMemoryLogging
import Logging
import NIOCore
import PassTapCore
import PassTapProtocol
import PassTapTestNetwork
import PassTapTestSupport
import Synchronization
import Testing

@testable import PassTapServer

/// `/rpc` sessions (``WebSessions``) on the socket's own connection code: the handshake first, the
/// token's Origin rules, the failure limiter, roles, per-token limits, audit lines, reloads.
@Suite(.timeLimit(.minutes(1))) struct WebSessionTests {
    static let tillSecret = "read-secret-0123456789"
    static let wallSecret = "observe-secret-0123456789"
    static let scriptSecret = "program-secret-0123456789"
    static let till = WebHarness.token("till-1", secret: tillSecret, roles: [.observe, .read])
    static let wall = WebHarness.token("wall", secret: wallSecret, roles: [.observe])
    static let script = WebHarness.token("script", secret: scriptSecret, roles: [.observe], origins: [])
    static let status = #"{"jsonrpc":"2.0","id":2,"method":"status"}"#
    static let subscribe = #"{"jsonrpc":"2.0","id":3,"method":"events.subscribe"}"#

    static func tokens(_ configuration: inout Configuration) {
        configuration.web.tokens = [till, wall, script]
    }

    /// The token a secret belongs to; a secret no token has is taken as a guess at till-1's.
    static func name(holding secret: String) -> String {
        [tillSecret: "till-1", wallSecret: "wall", scriptSecret: "script", "transmit-secret-0123456789": "root"][secret] ?? "till-1"
    }

    /// Runs the handshake holding `secret` and returns its error (`nil` on success).
    static func authError(_ client: LineClient, _ secret: String) async throws -> JSONRPCError? {
        let handshake = try await WebHarness.handshake(client, name: name(holding: secret), secret: secret)
        if case .failure(let error) = handshake.outcome { return error }
        return nil
    }

    /// Runs the handshake holding `secret` and records an issue unless it succeeds.
    static func expectAuthenticated(_ client: LineClient, _ secret: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let error = try await authError(client, secret)
        #expect(error == nil, "auth failed: \(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test func everyMethodBeforeAuthIsUnauthenticatedAndAuthAnswersTheTokenAndItsRoles() async throws {
        try await WebHarness.with(configure: Self.tokens) { web in
            try await LineClient.with(path: web.path(origin: WebHarness.posOrigin)) { client in
                let early = try await client.call(Self.status, expecting: StatusResult.self)
                guard case .failure(let error) = early.outcome else {
                    Issue.record("status was answered before auth")
                    return
                }
                #expect(error.code == .unauthenticated && error.code.rawValue == -32017 && error.reason == "unauthenticated")
                #expect(early.id == .number(2))
                // The connection stays: the handshake may still come.
                let handshake = try await WebHarness.handshake(client, name: "till-1", secret: Self.tillSecret, id: 3)
                #expect(handshake.serverProved)
                #expect(try handshake.outcome.get() == AuthResult(token: "till-1", roles: ["observe", "read"]))
                let status = try await client.call(Self.status, expecting: StatusResult.self)
                #expect(try status.outcome.get().webClients == 1)
            }
        }
    }

    @Test func aSecondAuthIsAnError() async throws {
        try await WebHarness.with(configure: Self.tokens) { web in
            try await LineClient.with(path: web.path(origin: WebHarness.posOrigin)) { client in
                try await Self.expectAuthenticated(client, Self.tillSecret)
                let again = try await Self.authError(client, Self.wallSecret)
                #expect(again?.code == .invalidRequest && again?.message.contains("already authenticated") == true)
                // Still the first token's connection.
                #expect(try await client.call(Self.status, expecting: StatusResult.self).outcome.get().webClients == 1)
            }
        }
    }

    @Test func aWrongTokenIsAuthFailedAndTheConnectionCloses() async throws {
        try await WebHarness.with(configure: Self.tokens) { web in
            try await LineClient.with(path: web.path(origin: WebHarness.posOrigin)) { client in
                let error = try await Self.authError(client, "read-secret-0123456780")
                #expect(error?.code == .authFailed && error?.code.rawValue == -32018)
                #expect(error?.message.contains("read-secret") == false)
                #expect(try await client.nextLine(waitingFor: "the close after a failed auth") == nil)
            }
        }
    }

    /// passtapd proves first, and only with the token's secret: a client holding the right secret
    /// sees the proof check out, one holding a guess does not, and an unknown name gets an answer of
    /// the same shape (a proof made with a random key), so names cannot be told from the answer.
    @Test func passtapdProvesFirstAndOnlyWithTheTokensSecret() async throws {
        try await WebHarness.with(configure: Self.tokens) { web in
            let path = web.path(origin: WebHarness.posOrigin)
            try await LineClient.with(path: path) { client in
                let right = try await WebHarness.handshake(client, name: "till-1", secret: Self.tillSecret)
                #expect(right.serverProved && (try? right.outcome.get()) != nil)
            }
            try await LineClient.with(path: path) { client in
                let guess = try await WebHarness.handshake(client, name: "till-1", secret: "read-secret-0123456780")
                #expect(!guess.serverProved)
                #expect(guess.outcome.failure?.code == .authFailed)
            }
            try await LineClient.with(path: path) { client in
                let unknown = try await WebHarness.handshake(client, name: "nobody-has-this", secret: Self.tillSecret)
                #expect(!unknown.serverProved)
                #expect(unknown.outcome.failure?.code == .authFailed)
            }
        }
    }

    /// What a client sent on one connection (its hello and its proof) is refused on another: the
    /// new connection's nonce makes the old proof worthless.
    @Test func aProofFromAnotherConnectionIsRefused() async throws {
        try await WebHarness.with(configure: Self.tokens) { web in
            let path = web.path(origin: WebHarness.posOrigin)
            // A recording of a client's two messages, as a squatter on the port would keep them.
            let clientNonce = WebAuthProof.makeNonce()
            let hello = #"{"jsonrpc":"2.0","id":1,"method":"auth.hello","params":{"protocol":1,"token":"till-1","nonce":"\#(WebAuthProof.hex(clientNonce))"}}"#
            var recordedProve = ""
            try await LineClient.with(path: path) { client in
                let answer = try await client.call(hello, expecting: AuthHelloResult.self).outcome.get()
                let proofs = WebAuthProof(name: "till-1", clientNonce: clientNonce, serverNonce: try #require(WebAuthProof.bytes(hex: answer.nonce)))
                recordedProve = #"{"jsonrpc":"2.0","id":2,"method":"auth.prove","params":{"proof":"\#(WebAuthProof.hex(proofs.proof(.client, secret: Array(Self.tillSecret.utf8))))"}}"#
                #expect(try await client.call(recordedProve, expecting: AuthResult.self).outcome.get().token == "till-1")
            }
            try await LineClient.with(path: path) { replay in
                _ = try await replay.call(hello, expecting: AuthHelloResult.self).outcome.get()
                let refused = try await replay.call(recordedProve, expecting: AuthResult.self)
                #expect(refused.outcome.failure?.code == .authFailed)
                #expect(try await replay.nextLine(waitingFor: "the close after a replayed proof") == nil)
            }
        }
    }

    /// The old one-message `auth` gets its own error naming the handshake, not `auth_failed`, and
    /// the connection closes; the secret it carried is never logged.
    @Test func theOldAuthIsAuthOutdated() async throws {
        let memory = InMemoryLogHandler()
        let logger = Logger(label: "passtap.test.web") { _ in memory }
        try await WebHarness.with(configure: Self.tokens, logger: logger) { web in
            try await LineClient.with(path: web.path(origin: WebHarness.posOrigin)) { client in
                let answer = try await client.call(WebHarness.outdatedAuth(Self.tillSecret), expecting: AuthResult.self)
                let error = try #require(answer.outcome.failure)
                #expect(error.code == .authOutdated && error.code.rawValue == -32023 && error.reason == "auth_outdated")
                #expect(error.message.contains("auth.hello") && error.message.contains("passtap.js"))
                #expect(try await client.nextLine(waitingFor: "the close after the old auth") == nil)
            }
        }
        #expect(memory.entries.contains { $0.message.description.contains("old auth") })
        #expect(!memory.entries.contains { "\($0.message) \($0.metadata)".contains(Self.tillSecret) })
    }

    /// A hello for another protocol version is refused with the versions passtapd speaks; a proof
    /// before any hello is a failed attempt.
    @Test func anotherProtocolOrAProofBeforeHelloIsRefused() async throws {
        try await WebHarness.with(configure: Self.tokens) { web in
            let path = web.path(origin: WebHarness.posOrigin)
            try await LineClient.with(path: path) { client in
                let nonce = WebAuthProof.hex(WebAuthProof.makeNonce())
                let answer = try await client.call(
                    #"{"jsonrpc":"2.0","id":1,"method":"auth.hello","params":{"protocol":2,"token":"till-1","nonce":"\#(nonce)"}}"#,
                    expecting: AuthHelloResult.self)
                let error = try #require(answer.outcome.failure)
                #expect(error.code == .protocolUnsupported && error.code.rawValue == -32024 && error.data?.supported == [1])
                #expect(try await client.nextLine(waitingFor: "the close") == nil)
            }
            try await LineClient.with(path: path) { client in
                let proof = String(repeating: "00", count: 32)
                let answer = try await client.call(
                    #"{"jsonrpc":"2.0","id":1,"method":"auth.prove","params":{"proof":"\#(proof)"}}"#, expecting: AuthResult.self)
                #expect(answer.outcome.failure?.code == .authFailed)
                #expect(try await client.nextLine(waitingFor: "the close") == nil)
            }
            try await LineClient.with(path: path) { client in
                // A malformed nonce is a params error, and the connection stays.
                let answer = try await client.call(
                    #"{"jsonrpc":"2.0","id":1,"method":"auth.hello","params":{"protocol":1,"token":"till-1","nonce":"abc"}}"#,
                    expecting: AuthHelloResult.self)
                #expect(answer.outcome.failure?.code == .invalidParams)
                try await Self.expectAuthenticated(client, Self.tillSecret)
            }
        }
    }

    @Test func noAuthInTimeClosesTheConnectionWithAuthTimeout() async throws {
        try await WebHarness.with(configure: { Self.tokens(&$0); $0.web.authTimeoutMilliseconds = 100 }) { web in
            try await LineClient.with(path: web.path(origin: WebHarness.posOrigin)) { client in
                let line = try #require(try await client.nextLine(waitingFor: "the auth_timeout notice"))
                let notice = try NDJSON.decode(JSONRPCResponse<JSONRPCNoResult>.self, from: Data(line.utf8))
                guard case .failure(let error) = notice.outcome else { throw ClosedWithoutNotice() }
                #expect(notice.id == .null && error.code == .authTimeout && error.code.rawValue == -32020)
                #expect(error.message.contains("auth_timeout_ms"))
                #expect(try await client.nextLine(waitingFor: "the close") == nil)
            }
        }
    }

    /// An authenticated connection is not closed by the auth timer, only by the idle timeout.
    @Test func anAuthenticatedConnectionOutlivesTheAuthTimeoutAndIdlesOutLikeASocketClient() async throws {
        try await WebHarness.with(configure: {
            Self.tokens(&$0)
            $0.web.authTimeoutMilliseconds = 250
            $0.web.idleTimeoutMilliseconds = 750
        }) { web in
            try await LineClient.with(path: web.path(origin: WebHarness.posOrigin)) { client in
                try await Self.expectAuthenticated(client, Self.tillSecret)
                let line = try #require(try await client.nextLine(waitingFor: "the idle_timeout notice"))
                #expect(line.contains("\"idle_timeout\"") && line.contains("[web] idle_timeout_ms"))
                #expect(try await client.nextLine(waitingFor: "the close") == nil)
            }
        }
    }

    struct ClosedWithoutNotice: Error {}

    /// A present Origin must be the token's or the listener's own; no Origin suits only a token
    /// with `origins = []`; `null` never matches.
    @Test(arguments: [
        (WebHarness.posOrigin, "till", true), (WebHarness.evilOrigin, "till", false), (WebHarness.ownOrigin, "wall", true),
        (nil, "till", false), (nil, "script", true), (WebHarness.posOrigin, "script", false), (WebHarness.ownOrigin, "script", true),
        ("null", "till", false),
    ] as [(String?, String, Bool)])
    func theOriginMustSuitTheToken(origin: String?, token: String, accepted: Bool) async throws {
        let secret = ["till": Self.tillSecret, "wall": Self.wallSecret, "script": Self.scriptSecret][token]!
        try await WebHarness.with(origins: [origin], configure: Self.tokens) { web in
            try await LineClient.with(path: web.path(origin: origin)) { client in
                let error = try await Self.authError(client, secret)
                #expect((error == nil) == accepted)
                if !accepted { #expect(error?.code == .authFailed) }
            }
        }
    }

    @Test func theHandshakeAdmitsOnlyOriginsSomeTokenOrTheListenerHas() async throws {
        try await WebHarness.with(configure: Self.tokens) { web in
            #expect(web.sessions.admitsHandshake(origin: nil))
            #expect(web.sessions.admitsHandshake(origin: WebHarness.posOrigin))
            #expect(web.sessions.admitsHandshake(origin: "HTTPS://POS.EXAMPLE.COM"))
            #expect(web.sessions.admitsHandshake(origin: WebHarness.ownOrigin))
            #expect(!web.sessions.admitsHandshake(origin: WebHarness.evilOrigin))
            #expect(!web.sessions.admitsHandshake(origin: "null"))
        }
    }

    @Test func listenerOriginsNameTheLoopbackNamesOfItsPort() {
        #expect(
            WebSessions.listenerOrigins(of: ListenAddress(host: "127.0.0.1", port: 0), port: 8941)
                == ["http://127.0.0.1:8941", "http://localhost:8941", "http://[::1]:8941"])
        #expect(WebSessions.listenerOrigins(of: ListenAddress(host: "::1", port: 8941), port: 8941).contains("http://[::1]:8941"))
    }

    /// Failures over the Origin's limit get auth_rate_limited with retry_after_ms; a correct token
    /// from another Origin is served at once, and so is one from the limited Origin itself.
    @Test func failuresOverTheLimitAreRateLimitedWhileCorrectTokensAreServedAtOnce() async throws {
        let clock = TestClock()
        try await WebHarness.with(
            origins: [WebHarness.evilOrigin, WebHarness.posOrigin, WebHarness.ownOrigin],
            configure: { Self.tokens(&$0); $0.web.authFailuresPerOrigin = 2 }, now: { clock.now }
        ) { web in
            for attempt in 1...3 {
                try await LineClient.with(path: web.path(origin: WebHarness.evilOrigin)) { client in
                    let refused = try await Self.authError(client, "guess-\(attempt)")
                    let error = try #require(refused)
                    if attempt <= 2 {
                        #expect(error.code == .authFailed)
                    } else {
                        #expect(error.code == .authRateLimited && error.code.rawValue == -32019)
                        #expect(error.data?.retryAfterMilliseconds == 60_000)
                    }
                    #expect(try await client.nextLine(waitingFor: "the close after a failed auth") == nil)
                }
            }
            try await LineClient.with(path: web.path(origin: WebHarness.posOrigin)) { client in
                try await Self.expectAuthenticated(client, Self.tillSecret)
            }
            // The dashboard's token from its own origin (limited or not, a right token is never refused by the limiter).
            try await LineClient.with(path: web.path(origin: WebHarness.ownOrigin)) { client in
                try await Self.expectAuthenticated(client, Self.wallSecret)
            }
            // A minute later the evil Origin's failures count as plain failures again.
            clock.advance(by: .seconds(61))
            try await LineClient.with(path: web.path(origin: WebHarness.evilOrigin)) { client in
                let error = try await Self.authError(client, "guess-4")
                #expect(error?.code == .authFailed)
            }
        }
    }

    @Test func anObserveTokenSeesPassesWithheldAndAReadTokenSeesTheMessage() async throws {
        try await WebHarness.with(origins: [WebHarness.ownOrigin], configure: Self.tokens) { web in
            try await LineClient.with(path: web.path(origin: WebHarness.ownOrigin)) { observer in
                try await LineClient.with(path: web.path(origin: WebHarness.ownOrigin)) { reader in
                    try await Self.expectAuthenticated(observer, Self.wallSecret)
                    try await Self.expectAuthenticated(reader, Self.tillSecret)
                    _ = try await observer.call(Self.subscribe, expecting: EventsSubscribeResult.self).outcome.get()
                    _ = try await reader.call(Self.subscribe, expecting: EventsSubscribeResult.self).outcome.get()
                    web.server.hub.publish(.readResult, reader: FanOutTests.reader, payload: FanOutTests.readResultWithPass())
                    let withheld = try FanOutTests.entry(ByteBuffer(string: try #require(try await observer.nextLine())))
                    #expect(withheld["withheld"] as? String == "access" && withheld["message"] is NSNull)
                    let full = try FanOutTests.entry(ByteBuffer(string: try #require(try await reader.nextLine())))
                    #expect(full["withheld"] is NSNull && full["message"] as? String == "member 0042")
                }
            }
        }
    }

    @Test func transmitIsNeverAWebRole() async throws {
        let root = WebHarness.token("root", secret: "transmit-secret-0123456789", roles: [.observe, .read, .transmit])
        try await WebHarness.with(configure: { $0.web.tokens = [root]; $0.socket.allowTransmit = true }) { web in
            try await LineClient.with(path: web.path(origin: WebHarness.posOrigin)) { client in
                let auth = try await WebHarness.handshake(client, name: "root", secret: "transmit-secret-0123456789")
                #expect(try auth.outcome.get().roles == ["observe", "read"])
                let transmit = try await client.call(
                    #"{"jsonrpc":"2.0","id":4,"method":"card.transmit","params":{"reader":"pcsc:Zeta Reader 00 00","apdu":"00A4040000"}}"#,
                    expecting: CardTransmitResult.self)
                #expect(transmit.outcome.failure?.code == .forbidden)
            }
        }
    }

    @Test func aTokenHoldsAtMostMaxClientsPerToken() async throws {
        try await WebHarness.with(configure: { Self.tokens(&$0); $0.web.maxClientsPerToken = 1 }) { web in
            let path = web.path(origin: WebHarness.posOrigin)
            try await LineClient.with(path: path) { first in
                try await Self.expectAuthenticated(first, Self.tillSecret)
                try await LineClient.with(path: path) { second in
                    let error = try await Self.authError(second, Self.tillSecret)
                    #expect(error?.code == .tooManyClients && error?.message.contains("max_clients_per_token") == true)
                    #expect(try await second.nextLine(waitingFor: "the close") == nil)
                }
                // Another token has its own count.
                try await LineClient.with(path: path) { other in
                    try await Self.expectAuthenticated(other, Self.wallSecret)
                }
            }
            // The slot is given back when the connection ends.
            try await waitUntil("the first connection's slot is free") { web.sessions.connectedClients == 0 }
            try await LineClient.with(path: path) { again in
                try await Self.expectAuthenticated(again, Self.tillSecret)
            }
        }
    }

    @Test func vasReadsAreLimitedPerTokenAndAuditedByTokenName() async throws {
        let memory = InMemoryLogHandler()
        let logger = Logger(label: "passtap.test.web") { _ in memory }
        try await WebHarness.with(
            configure: { Self.tokens(&$0); $0.enableVAS(merchants: ["pass.com.example.coffee"]); $0.web.vasReadsPerToken = 1 }, logger: logger
        ) { web in
            let path = web.path(origin: WebHarness.posOrigin)
            let vasRead = { (id: Int) in #"{"jsonrpc":"2.0","id":\#(id),"method":"vas.read","params":{"reader":"pcsc:Zeta Reader 00 00","timeout_ms":30000}}"# }
            try await LineClient.with(path: path) { first in
                try await LineClient.with(path: path) { second in
                    try await Self.expectAuthenticated(first, Self.tillSecret)
                    try await Self.expectAuthenticated(second, Self.tillSecret)
                    try first.sendLine(vasRead(5))
                    try await web.server.waitForVASReads(1, on: ServerHarness.readers[0].id)
                    let refused = try await second.call(vasRead(6), expecting: VASReadResult.self)
                    #expect(refused.outcome.failure?.code == .busy)
                    #expect(refused.outcome.failure?.message.contains("token till-1") == true)
                    #expect(refused.outcome.failure?.message.contains("vas_reads_per_token") == true)
                }
            }
        }
        let audits = memory.entries.filter { $0.message == "audit" }
        #expect(audits.count == 2)
        #expect(audits.allSatisfy { $0.metadata["peer.token"] == "till-1" && $0.metadata["peer.origin"] == "\(WebHarness.posOrigin)" })
        #expect(audits.allSatisfy { $0.metadata["peer.uid"] == nil })
        #expect(!memory.entries.contains { "\($0.message) \($0.metadata)".contains(Self.tillSecret) })
    }

    @Test func aReloadClosesTheConnectionsOfARevokedOrChangedTokenOnly() async throws {
        let memory = InMemoryLogHandler()
        let logger = Logger(label: "passtap.test.web") { _ in memory }
        try await WebHarness.with(configure: Self.tokens, logger: logger) { web in
            let path = web.path(origin: WebHarness.posOrigin)
            try await LineClient.with(path: path) { kept in
                try await LineClient.with(path: path) { changed in
                    try await LineClient.with(path: path) { revoked in
                        try await Self.expectAuthenticated(kept, Self.tillSecret)
                        try await Self.expectAuthenticated(changed, Self.wallSecret)
                        try await Self.expectAuthenticated(revoked, Self.tillSecret)
                        // kept and revoked share a token: split them.
                        var new = web.server.server.live.current
                        var wall = Self.wall
                        wall.roles = [.observe, .read]
                        new.web.tokens = [Self.till, wall]
                        web.apply(new)
                        #expect(try await changed.nextLine(waitingFor: "the close of a changed token") == nil)
                        #expect(try await kept.call(Self.status, expecting: StatusResult.self).outcome.get().webClients == 2)
                        var revoke = new
                        revoke.web.tokens = [wall]
                        web.apply(revoke)
                        #expect(try await kept.nextLine(waitingFor: "the close of a revoked token") == nil)
                        #expect(try await revoked.nextLine(waitingFor: "the close of a revoked token") == nil)
                    }
                }
            }
        }
        let notices = memory.entries.filter { $0.message.description.contains("the reload revoked or changed") }
        #expect(notices.map { $0.metadata["peer.token"]?.description } .sorted { ($0 ?? "") < ($1 ?? "") } == ["till-1", "till-1", "wall"])
    }

    @Test func aSecretChangeClosesItsConnections() async throws {
        try await WebHarness.with(configure: Self.tokens) { web in
            try await LineClient.with(path: web.path(origin: WebHarness.posOrigin)) { client in
                try await Self.expectAuthenticated(client, Self.tillSecret)
                var new = web.server.server.live.current
                new.web.tokens[0].secret = WebTokenSecret("another-secret-0123456789")
                web.apply(new)
                #expect(try await client.nextLine(waitingFor: "the close") == nil)
            }
        }
    }

    @Test func theMetricsAreToldOfWebClientsAndFailedAttempts() async throws {
        let clients = Mutex(0)
        let failures = Mutex([String]())
        let observer = SocketServerObserver(
            clientsChanged: { _ in }, eventsDropped: { _ in }, webClientsChanged: { delta in clients.withLock { $0 += delta } },
            authFailed: { reason in failures.withLock { $0.append(reason) } })
        try await WebHarness.with(configure: { Self.tokens(&$0); $0.web.authFailuresPerOrigin = 1 }, observer: observer) { web in
            let path = web.path(origin: WebHarness.posOrigin)
            try await LineClient.with(path: path) { client in
                try await Self.expectAuthenticated(client, Self.tillSecret)
                #expect(clients.withLock { $0 } == 1)
            }
            try await waitUntil("the client is counted out") { clients.withLock { $0 } == 0 }
            for _ in 1...2 {
                try await LineClient.with(path: path) { client in _ = try await Self.authError(client, "wrong") }
            }
        }
        #expect(failures.withLock { $0 } == ["auth_failed", "auth_rate_limited"])
    }
}

extension Result {
    /// The error, if it is one.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
