import ForwardSettings
import WebSettings
import Foundation
import PassTapProtocol
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// `[web] listen` on the real stack: the built passtapd on pcscd, vsmartcard-vpcd and the
    /// virtual iPhone, reached over TCP by ``WebSocketClient`` (RFC 6455 by hand, not NIO).
    @Suite(.serialized) struct WebScenarioTests {
        static let pos = "https://pos.example.com"
        static let kiosk = "https://kiosk.example.com"
        /// Secrets of the rig's token files (as `passtap web-token` makes them: 43 base64url characters).
        static let tillSecret = "vQ3xK9mN2pL7wR4tY8uE1oI6aS5dF0gHjZcXbVnMq2w"
        static let wallSecret = "Zt7Ypq2Lr9Wx4Kc8Vn3Bm6Hs1Dg5Fj0QaEuIoRtYpLk"
        static let scriptSecret = "Ns4Gh8Jk2Lm6Qw0Er3Ty7Ui1Op5As9Df2Gh6Jk0LzXc"

        /// The `[web]` table and tokens: `till-1` (observe, read) from `pos`, `wall` (observe)
        /// from `kiosk` and `pos`, `script` (observe) without an Origin.
        static func web(port: Int, settings: String = "", tokens: [String] = ["till-1", "wall", "script"]) -> String {
            let entries = [
                "till-1": #"roles = ["observe", "read"]"# + "\norigins = [\"\(pos)\"]",
                "wall": #"roles = ["observe"]"# + "\norigins = [\"\(kiosk)\", \"\(pos)\"]",
                "script": #"roles = ["observe"]"# + "\norigins = []",
            ]
            var text = "[web]\nlisten = \"127.0.0.1:\(port)\"\n\(settings)\n"
            for name in tokens {
                text += "[[web.tokens]]\nname = \"\(name)\"\ntoken_file = \"\(name).token\"\n\(entries[name]!)\n"
            }
            return text
        }

        static func rig(port: Int, settings: String = "", extra: String = "") throws -> PhoneRig {
            try PhoneRig(
                config: PhoneRig.config(extra: web(port: port, settings: settings) + extra),
                secrets: ["till-1.token": tillSecret, "wall.token": wallSecret, "script.token": scriptSecret])
        }

        /// The token a secret belongs to; a secret no token has is taken as a guess at till-1's.
        static func name(holding secret: String) -> String {
            [tillSecret: "till-1", wallSecret: "wall", scriptSecret: "script"][secret] ?? "till-1"
        }

        /// The handshake's last answer for a client holding `secret` (see ``name(holding:)``).
        static func authAnswer(_ client: WebSocketClient, _ secret: String) throws -> [String: Any] {
            try client.handshake(name: name(holding: secret), secret: secret).answer
        }

        /// A WebSocket on `/rpc` from `origin`, authenticated by the handshake with `secret`.
        static func authenticated(port: Int, secret: String, origin: String?) throws -> WebSocketClient {
            let client = try WebSocketClient.open(port: port, origin: origin)
            let handshake = try client.handshake(name: name(holding: secret), secret: secret)
            guard handshake.serverProved, handshake.answer["result"] != nil else {
                throw Rig.Failure(description: "the handshake failed: \(handshake.answer)")
            }
            return client
        }

        static func errorCode(_ answer: [String: Any]) -> Int? {
            (answer["error"] as? [String: Any])?["code"] as? Int
        }

        /// DNS rebinding: a `Host` naming another site is refused on both listeners, for a page, an
        /// upgrade and the metrics; an unlisted Origin is refused before the upgrade.
        @Test func theHandshakeChecksHostOnBothListenersAndOriginBeforeTheUpgrade() throws {
            let port = try MetricsScenarioTests.freePort()
            let metricsPort = try MetricsScenarioTests.freePort()
            let vas = try Self.rig(port: port, extra: "[metrics]\nlisten = \"127.0.0.1:\(metricsPort)\"\n")
            defer { vas.stop() }
            #expect(try WebSocketClient(port: port).get("/", host: "evil.example:\(port)").status == 421)
            #expect(try WebSocketClient(port: port).upgrade(path: "/rpc", host: "evil.example:\(port)", origin: nil).status == 421)
            #expect(try WebSocketClient(port: metricsPort).get("/metrics", host: "evil.example:\(metricsPort)").status == 421)
            let page = try WebSocketClient(port: port).get("/", host: "127.0.0.1:\(port)")
            #expect(page.status == 200 && page.head.contains("Content-Security-Policy"), "\(page.head)")
            #expect(!page.head.lowercased().contains("access-control-allow-origin: *"))
            #expect(try WebSocketClient(port: port).get("/", host: "localhost:\(port)").status == 200)

            let unlisted = try WebSocketClient(port: port).upgrade(path: "/rpc", host: "127.0.0.1:\(port)", origin: "https://evil.example")
            #expect(unlisted.status == 403, "\(unlisted.head)")
            #expect(try WebSocketClient(port: port).upgrade(path: "/rpc", host: "127.0.0.1:\(port)", origin: "null").status == 403)
            // Listed Origins, the listener's own, and none, upgrade.
            for origin in [Self.pos, Self.kiosk, "http://127.0.0.1:\(port)", "http://localhost:\(port)", nil] {
                #expect(throws: Never.self) { _ = try WebSocketClient.open(port: port, origin: origin) }
            }
        }

        /// No `auth` in time, a wrong token, a token from an Origin it does not list, and a flood of
        /// failures: each closes its connection with its code, while the right token from another
        /// Origin is served at once.
        @Test func authRefusalsCloseWithTheirCodesAndNeverDelayTheRightToken() throws {
            let port = try MetricsScenarioTests.freePort()
            let vas = try Self.rig(port: port, settings: "auth_timeout_ms = 300\nauth_failures_per_origin = 3")
            defer { vas.stop() }
            // Before auth: unauthenticated, and the connection stays.
            let early = try WebSocketClient.open(port: port, origin: Self.pos)
            #expect(Self.errorCode(try early.call(#"{"jsonrpc":"2.0","id":5,"method":"status"}"#, id: 5, what: "status before auth")) == -32017)
            // Then nothing: auth_timeout, then a close frame and the end of the connection.
            let timeout = try early.readJSON(what: "the auth_timeout notice")
            #expect(Self.errorCode(timeout) == -32020 && timeout["id"] is NSNull, "\(timeout)")
            #expect(try early.read(what: "the close frame") == .close(1000))
            #expect(early.isClosedByPeer())

            // A wrong token, and a right one from an Origin it does not list: auth_failed, closed.
            for (secret, origin) in [("not-the-secret-\(UUID())", Self.kiosk), (Self.tillSecret, Self.kiosk)] {
                let client = try WebSocketClient.open(port: port, origin: origin)
                let answer = try Self.authAnswer(client, secret)
                #expect(Self.errorCode(answer) == -32018, "\(answer)")
                #expect(client.isClosedByPeer())
            }
            // The kiosk Origin has two failures: the third is still auth_failed, the fourth is limited.
            var codes: [Int?] = []
            var retry: Int?
            for attempt in 0..<3 {
                let client = try WebSocketClient.open(port: port, origin: Self.kiosk)
                let answer = try Self.authAnswer(client, "guess-\(attempt)-\(UUID())")
                codes.append(Self.errorCode(answer))
                retry = ((answer["error"] as? [String: Any])?["data"] as? [String: Any])?["retry_after_ms"] as? Int ?? retry
            }
            #expect(codes == [-32018, -32019, -32019])
            #expect((1...60_000).contains(retry ?? 0), "retry_after_ms \(String(describing: retry))")
            // Meanwhile the till's token from its Origin is served at once, and so is the wall's
            // from the limited kiosk Origin.
            let till = try Self.authenticated(port: port, secret: Self.tillSecret, origin: Self.pos)
            let status = try till.call(#"{"jsonrpc":"2.0","id":2,"method":"status"}"#, id: 2, what: "status")
            #expect((status["result"] as? [String: Any])?["web_clients"] as? Int == 1, "\(status)")
            _ = try Self.authenticated(port: port, secret: Self.wallSecret, origin: Self.kiosk)
            // The secret never reaches the log; the token's name does.
            #expect(!vas.rig.daemonLog.contains(Self.tillSecret))
        }

        /// What a client sent to whatever held the port (a squatter's recording: its hello and its
        /// proof) is refused when replayed to the real passtapd, which picks a new nonce; the old
        /// one-message `auth`, which sent the secret itself, gets its own error naming the handshake.
        @Test func aRecordedHandshakeIsWorthlessAndTheOldAuthIsNamedOutdated() throws {
            let port = try MetricsScenarioTests.freePort()
            let vas = try Self.rig(port: port)
            defer { vas.stop() }
            let clientNonce = WebAuthProof.makeNonce()
            let hello = try WebSocketClient.request(id: 1, method: "auth.hello", AuthHelloParams(token: "till-1", nonce: WebAuthProof.hex(clientNonce)))
            let first = try WebSocketClient.open(port: port, origin: Self.pos)
            let answer = try #require(try first.call(hello, id: 1, what: "the auth.hello answer")["result"] as? [String: Any])
            let serverNonce = try #require((answer["nonce"] as? String).flatMap(WebAuthProof.bytes(hex:)))
            let proofs = WebAuthProof(name: "till-1", clientNonce: clientNonce, serverNonce: serverNonce)
            let prove = try WebSocketClient.request(
                id: 2, method: "auth.prove", AuthProveParams(proof: WebAuthProof.hex(proofs.proof(.client, secret: Array(Self.tillSecret.utf8)))))
            #expect(try first.call(prove, id: 2, what: "the auth.prove answer")["result"] != nil)

            let replay = try WebSocketClient.open(port: port, origin: Self.pos)
            _ = try replay.call(hello, id: 1, what: "the replayed hello's answer")
            #expect(Self.errorCode(try replay.call(prove, id: 2, what: "the replayed proof's answer")) == -32018)
            #expect(replay.isClosedByPeer())

            let old = try WebSocketClient.open(port: port, origin: Self.pos)
            let outdated = try old.call(#"{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"\#(Self.tillSecret)"}}"#, id: 1, what: "the old auth's answer")
            #expect(Self.errorCode(outdated) == -32023, "\(outdated)")
            #expect(((outdated["error"] as? [String: Any])?["message"] as? String)?.contains("auth.hello") == true)
            #expect(old.isClosedByPeer())
            #expect(!vas.rig.daemonLog.contains(Self.tillSecret))
        }

        /// Roles as on the socket: the observe token sees the tap with the message withheld, the
        /// read token sees the message; a vas.read over /rpc gets the tap too.
        /// `feedback.signal` over `/rpc`: a token with `read` may give the POS's verdict (here
        /// `feedback_unavailable`, `disabled`: the rig has no `[feedback]`), one with `observe`
        /// only may not.
        @Test func aReadTokenMayGiveTheVerdictAndAnObserveTokenMayNot() throws {
            let port = try MetricsScenarioTests.freePort()
            let vas = try Self.rig(port: port)
            defer { vas.stop() }
            let signal = #"{"jsonrpc":"2.0","id":4,"method":"feedback.signal","params":{"reader":"\#(vas.rig.readerID)","verdict":"accepted"}}"#
            let wall = try Self.authenticated(port: port, secret: Self.wallSecret, origin: "http://127.0.0.1:\(port)")
            #expect(Self.errorCode(try wall.call(signal, id: 4, what: "the wall's feedback.signal")) == -32014)
            let till = try Self.authenticated(port: port, secret: Self.tillSecret, origin: Self.pos)
            let answer = try till.call(signal, id: 4, what: "the till's feedback.signal")
            #expect(Self.errorCode(answer) == -32026, "\(answer)")
            #expect(((answer["error"] as? [String: Any])?["data"] as? [String: Any])?["code"] as? String == "disabled", "\(answer)")
        }

        @Test func anObserveTokenSeesTheTapWithheldAndAReadTokenSeesTheMessage() throws {
            let port = try MetricsScenarioTests.freePort()
            let vas = try Self.rig(port: port)
            defer { vas.stop() }
            let subscribe = #"{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{"kinds":["read.result"]}}"#
            let wall = try Self.authenticated(port: port, secret: Self.wallSecret, origin: "http://127.0.0.1:\(port)")
            let till = try Self.authenticated(port: port, secret: Self.tillSecret, origin: Self.pos)
            #expect(try wall.call(subscribe, id: 2, what: "the wall's subscription")["result"] != nil)
            #expect(try till.call(subscribe, id: 2, what: "the till's subscription")["result"] != nil)
            // vas.read over /rpc: the read token waits for the tap; the observe token may not.
            let vasRead = #"{"jsonrpc":"2.0","id":3,"method":"vas.read","params":{"reader":"\#(vas.rig.readerID)","timeout_ms":30000}}"#
            #expect(Self.errorCode(try wall.call(vasRead, id: 3, what: "the wall's vas.read")) == -32014)
            let reader = try Self.authenticated(port: port, secret: Self.tillSecret, origin: Self.pos)
            try reader.sendText(vasRead)
            // A tap before the call is queued is a plain tap: tap again (as the socket's till does).
            var read: [String: Any]?
            for _ in 1...5 where read == nil {
                try vas.tap()
                read = try? reader.readJSON(timeout: 1, what: "the vas.read answer") { $0["id"] as? Int == 3 }
            }
            let readEntry = PhoneRig.entry(in: try #require(read?["result"] as? [String: Any], "\(String(describing: read))"))
            #expect(readEntry?["message"] as? String == PhoneRig.message, "\(String(describing: read))")
            func coffee(_ client: WebSocketClient) throws -> [String: Any]? {
                let event = try client.readJSON(timeout: 30, what: "read.result") { $0["method"] as? String == "event" }
                return PhoneRig.entry(in: try #require(event["params"] as? [String: Any]))
            }
            let withheld = try #require(try coffee(wall))
            #expect(withheld["message"] is NSNull && withheld["withheld"] as? String == "access", "\(withheld)")
            let full = try #require(try coffee(till))
            #expect(full["message"] as? String == PhoneRig.message, "\(full)")
        }

        /// `/rpc` answers the socket's own conformance cases (`HostileScenarioTests.garbage`) with
        /// the same codes, each on a connection that stays open.
        @Test func rpcAnswersTheSocketsConformanceCases() throws {
            let port = try MetricsScenarioTests.freePort()
            let vas = try Self.rig(port: port)
            defer { vas.stop() }
            let client = try Self.authenticated(port: port, secret: Self.tillSecret, origin: Self.pos)
            for (index, kind) in HostileScenarioTests.garbage.enumerated() {
                try client.sendFrame(opcode: 0x1, payload: kind.line(index + 10))
                let answer = try client.readJSON(what: "the answer to \(kind.name)")
                #expect(Self.errorCode(answer) == kind.code, "\(kind.name): \(answer)")
            }
            let status = try client.call(#"{"jsonrpc":"2.0","id":"after","method":"status"}"#.replacingOccurrences(of: "\"after\"", with: "77"), id: 77, what: "status")
            #expect(status["result"] != nil)
            // A message over the socket's line limit: line_too_long, then close 1009.
            try client.sendText(#"{"jsonrpc":"2.0","id":3,"method":"status","params":{"pad":""# + String(repeating: "x", count: 1 << 20) + #""}}"#)
            var closing: [WebSocketClient.Message] = []
            while closing.count < 2, let message = try? client.read(what: "the refusal of a long message") { closing.append(message) }
            #expect(closing.contains(.close(1009)), "\(closing)")
            // Binary frames are refused with 1003.
            let binary = try Self.authenticated(port: port, secret: Self.tillSecret, origin: Self.pos)
            try binary.sendFrame(opcode: 0x2, payload: [1, 2, 3])
            #expect(try binary.read(what: "the close of a binary frame") == .close(1003))
            // A ping is answered.
            let ping = try Self.authenticated(port: port, secret: Self.tillSecret, origin: Self.pos)
            try ping.sendFrame(opcode: 0x9, payload: Array("hi".utf8))
            #expect(try ping.read(what: "the pong") == .pong(Array("hi".utf8)))
        }

        /// `max_clients_per_token` refuses a token's next handshake, and `max_clients` the next
        /// authenticated connection of any token; connections that have not authenticated have
        /// places of their own, `max_pending_per_uid` per user, and one more is closed as soon as
        /// it is accepted.
        @Test func theWebsConnectionLimitsHold() throws {
            let port = try MetricsScenarioTests.freePort()
            let vas = try Self.rig(port: port, settings: "max_clients = 2\nmax_clients_per_token = 1\nmax_pending_per_uid = 2")
            defer { vas.stop() }
            let till = try Self.authenticated(port: port, secret: Self.tillSecret, origin: Self.pos)
            let second = try WebSocketClient.open(port: port, origin: Self.pos)
            let refused = try Self.authAnswer(second, Self.tillSecret)
            #expect(Self.errorCode(refused) == -32006, "\(refused)")
            #expect(second.isClosedByPeer())
            let wall = try Self.authenticated(port: port, secret: Self.wallSecret, origin: Self.pos)
            // Two authenticated: a third token's handshake is refused, naming max_clients.
            let third = try WebSocketClient.open(port: port, origin: nil)
            let full = try Self.authAnswer(third, Self.scriptSecret)
            let message = (full["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(Self.errorCode(full) == -32006 && message.contains("[web] max_clients"), "\(full)")
            #expect(third.isClosedByPeer())
            // This user's connections that have not authenticated: two are held, a third is
            // closed before it is served.
            let idle = try (0..<2).map { _ in try WebSocketClient(port: port) }
            let over = try WebSocketClient(port: port)
            #expect(over.isClosedByPeer())
            #expect(!idle[0].isClosedByPeer(timeout: 0.5) && !idle[1].isClosedByPeer(timeout: 0.1))
            _ = (till, wall)
        }

        /// SIGHUP with a token removed and another's roles changed closes those connections; a
        /// third token's connection stays and goes on answering.
        @Test func aReloadClosesTheConnectionsOfARevokedOrChangedTokenOnly() throws {
            let port = try MetricsScenarioTests.freePort()
            let vas = try Self.rig(port: port)
            defer { vas.stop() }
            let till = try Self.authenticated(port: port, secret: Self.tillSecret, origin: Self.pos)
            let wall = try Self.authenticated(port: port, secret: Self.wallSecret, origin: Self.kiosk)
            let script = try Self.authenticated(port: port, secret: Self.scriptSecret, origin: nil)
            var config = PhoneRig.config(extra: Self.web(port: port, tokens: ["till-1", "script"]))
            config = config.replacingOccurrences(of: "name = \"script\"\ntoken_file = \"script.token\"\nroles = [\"observe\"]",
                with: "name = \"script\"\ntoken_file = \"script.token\"\nroles = [\"observe\", \"read\"]")
            try vas.rig.reload(config: config)
            #expect(try vas.ledger.next("config.reloaded")["changed"] as? [String] == ["web.tokens"])
            #expect(wall.isClosedByPeer(), "the removed token's connection is closed")
            #expect(script.isClosedByPeer(), "the changed token's connection is closed")
            let status = try till.call(#"{"jsonrpc":"2.0","id":4,"method":"status"}"#, id: 4, what: "status after the reload")
            #expect((status["result"] as? [String: Any])?["web_clients"] as? Int == 1, "\(status)")
            #expect(vas.rig.daemonLog.contains("peer.token=wall"), "the notice names the token")
            // The removed token no longer authenticates.
            let again = try WebSocketClient.open(port: port, origin: Self.pos)
            #expect(Self.errorCode(try Self.authAnswer(again, Self.wallSecret)) == -32018)
        }
    }
}
