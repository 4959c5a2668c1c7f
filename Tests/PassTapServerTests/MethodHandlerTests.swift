import ForwardSettings
import Logging
import InMemoryLogging
import Foundation
import ISO7816
import NIOCore
import PassTapCore
import PassTapFeedback
import PassTapForward
import PassTapProtocol
import Synchronization
import Testing

@testable import PassTapServer

/// Each socket method's handler on its own, without a socket: params in, reply out, with an
/// injected clock where time matters. And the dispatcher's table: every method has a handler,
/// and a connection without the handler's role gets `forbidden`.
@Suite(.timeLimit(.minutes(1))) struct MethodHandlerTests {
    static let reader = ReaderID.pcsc("Zeta Reader 00 00")
    static let context = RequestContext(roles: Set(AccessRole.allCases), alreadySubscribed: false)
    static let daemon = DaemonInfo(version: "9.9.9", instance: "instance-1", started: ContinuousClock.now)

    static func result<Output>(_ reply: MethodReply<Output>) throws -> Output {
        guard case .result(let output) = reply else { throw Failure("expected a result, got \(reply)") }
        return output
    }

    static func failure<Output>(_ reply: MethodReply<Output>) throws -> JSONRPCError {
        guard case .failure(let error) = reply else { throw Failure("expected an error, got \(reply)") }
        return error
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func statusReportsUptimeOnTheInjectedClock() async throws {
        let readers = [ReaderInfo(id: Self.reader, name: "Zeta Reader 00 00", backend: "pcsc", state: .empty)]
        let later = Self.daemon.started + .milliseconds(90_512)
        let handler = StatusHandler(daemon: Self.daemon, readers: { readers }, clock: DaemonClock(now: { later }))
        let status = try Self.result(await handler.handle(NoParams(), context: Self.context))
        #expect(status.uptimeSeconds == 90.512)
        #expect(status.instance == "instance-1" && status.version == "9.9.9")
        #expect(status.readers.map(\.id) == [Self.reader])
    }

    @Test func cardTransmitIsRefusedWhenDisabledAndCheckedBeforeItReachesTheReader() async throws {
        let calls = Counter()
        let transmit: @Sendable (CommandAPDU, Bool, ReaderID) async throws(ReaderCommandError) -> ResponseAPDU = { _, _, _ in
            calls.increment()
            return try! ResponseAPDU(bytes: [0x01, 0x90, 0x00])
        }
        let disabled = CardTransmitHandler(allowed: false, transmit: transmit)
        let params = CardTransmitParams(reader: Self.reader, apdu: "00A4040007A0000000041010", raw: false)
        #expect(try Self.failure(await disabled.handle(params, context: Self.context)).code == .transmitDisabled)

        let enabled = CardTransmitHandler(allowed: true, transmit: transmit)
        let notHex = CardTransmitParams(reader: Self.reader, apdu: "zz", raw: false)
        #expect(try Self.failure(await enabled.handle(notHex, context: Self.context)).code == .invalidParams)
        #expect(calls.value == 0)
        let answer = try Self.result(await enabled.handle(params, context: Self.context))
        #expect(answer.response == "01" && answer.sw == "9000")
        #expect(calls.value == 1)
    }

    @Test func vasReadChecksItsParamsAndTimesOutOnTheInjectedTimer() async throws {
        // The queue's timer fires at once: no waiting.
        let queue = PassReadQueue(timer: { _, fire in fire() })
        let handler = VASReadHandler(merchants: ["pass.a"], vasReads: queue, pending: PendingVASReads(limit: 1)) { $0 == Self.reader }
        let off = VASReadHandler(merchants: nil, vasReads: queue, pending: PendingVASReads(limit: 1)) { _ in true }
        let params = VASReadParams(reader: Self.reader, merchants: nil, timeoutMilliseconds: 1000)
        #expect(try Self.failure(await off.handle(params, context: Self.context)).code == .vasDisabled)
        let stranger = VASReadParams(reader: Self.reader, merchants: ["pass.b"], timeoutMilliseconds: 1000)
        #expect(try Self.failure(await handler.handle(stranger, context: Self.context)).message.contains("pass.b is not configured"))
        let elsewhere = VASReadParams(reader: .pcsc("Other"), merchants: nil, timeoutMilliseconds: 1000)
        #expect(try Self.failure(await handler.handle(elsewhere, context: Self.context)).code == .unknownReader)
        #expect(try Self.failure(await handler.handle(params, context: Self.context)).code == .timeout)
        #expect(queue.waitingCount(on: Self.reader) == 0)
    }

    /// `pass.read`, the new name: the same checks, its own name in its errors.
    @Test func passReadIsTheSameReadUnderItsOwnName() async throws {
        let queue = PassReadQueue(timer: { _, fire in fire() })
        let handler = PassReadHandler(merchants: ["pass.a"], vasReads: queue, pending: PendingVASReads(limit: 1)) { $0 == Self.reader }
        let stranger = VASReadParams(reader: Self.reader, merchants: ["pass.b"], timeoutMilliseconds: 1000)
        let refused = try Self.failure(await handler.handle(stranger, context: Self.context))
        #expect(refused.message.contains("bad params for pass.read") && refused.message.contains("pass.b is not configured"), "\(refused.message)")
        let params = VASReadParams(reader: Self.reader, merchants: nil, timeoutMilliseconds: 1000)
        let timeout = try Self.failure(await handler.handle(params, context: Self.context))
        #expect(timeout.code == .timeout && timeout.data?.skippedTaps == nil)
    }

    @Test func aSecondSubscriptionOnOneConnectionIsRefused() async throws {
        let hub = EventHub(lineEncoder: EventNotificationEncoder(), capacity: 8)
        let handler = EventsSubscribeHandler(hub: hub, daemon: Self.daemon, queueLimit: 4)
        let again = RequestContext(roles: [.observe], alreadySubscribed: true)
        #expect(try Self.failure(await handler.handle(EventsSubscribeParams(), context: again)).code == .alreadySubscribed)
        guard case .subscribed(let result, let subscription) = await handler.handle(EventsSubscribeParams(), context: Self.context) else {
            throw Failure("no subscription")
        }
        defer { subscription.cancel() }
        #expect(result.instance == "instance-1")
    }

    /// `card.transmit` allowed or not, and one VAS merchant, `pass.a`.
    static func configuration(allowTransmit: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.socket.allowTransmit = allowTransmit
        configuration.enableVAS(merchants: ["pass.a"])
        return configuration
    }

    /// Every method has a handler (the core's and the forwarding and feedback slices', as the
    /// daemon registers them), and the role each needs is the documented one.
    @Test func theTableCoversEveryMethodWithItsRole() {
        let live = LiveConfiguration(Configuration())
        let dispatcher = MethodDispatcher(
            hub: EventHub(lineEncoder: EventNotificationEncoder(), capacity: 8), backends: ReaderBackends([]), vasReads: PassReadQueue(), daemon: Self.daemon,
            live: live,
            methods: ForwardSlice.methods(forward: nil, settings: { Configuration.Forward() })
                + FeedbackSlice(live: live, logger: Logger(label: "test")).methods)
        #expect(Set(dispatcher.handlers.keys) == Set(RPCMethod.allCases))
        let roles = Dictionary(uniqueKeysWithValues: dispatcher.handlers.map { ($0.key, type(of: $0.value).role) })
        #expect(
            roles == [
                .status: .observe, .readersList: .observe, .eventsSubscribe: .observe, .passRead: .read, .vasRead: .read, .cardTransmit: .transmit,
                .forwardStatus: .observe, .forwardRetry: .manage, .forwardDrop: .manage, .feedbackSignal: .read,
            ])
    }

    struct Forbidden: Sendable, CustomTestStringConvertible {
        let line: String
        let roles: Set<AccessRole>
        var testDescription: String { line.components(separatedBy: "\"method\":\"")[1].prefix { $0 != "\"" } + " with \(roles.sorted())" }
    }

    static let forbidden: [Forbidden] = [
        .init(line: #"{"jsonrpc":"2.0","id":1,"method":"pass.read","params":{"reader":"pcsc:Zeta Reader 00 00"}}"#, roles: [.observe]),
        .init(line: #"{"jsonrpc":"2.0","id":1,"method":"vas.read","params":{"reader":"pcsc:Zeta Reader 00 00"}}"#, roles: [.observe]),
        .init(line: #"{"jsonrpc":"2.0","id":1,"method":"card.transmit","params":{"reader":"pcsc:Zeta Reader 00 00","apdu":"00A40400"}}"#, roles: [.observe, .read]),
        .init(line: #"{"jsonrpc":"2.0","id":1,"method":"status"}"#, roles: []),
    ]

    @Test(arguments: forbidden)
    func aMethodWithoutItsRoleIsForbidden(_ forbidden: Forbidden) async throws {
        let line = forbidden.line
        let roles = forbidden.roles
        let dispatcher = MethodDispatcher(
            hub: EventHub(lineEncoder: EventNotificationEncoder(), capacity: 8), backends: ReaderBackends([]), vasReads: PassReadQueue(), daemon: Self.daemon,
            live: LiveConfiguration(Self.configuration(allowTransmit: true)))
        guard case .reply(let buffer) = await dispatcher.handle(line: ByteBuffer(string: line), alreadySubscribed: false, roles: roles) else {
            throw Failure("no reply")
        }
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any])
        let error = try #require(answer["error"] as? [String: Any])
        #expect(error["code"] as? Int == -32014)
        #expect((error["data"] as? [String: Any])?["reason"] as? String == "forbidden")
    }
}

extension MethodHandlerTests {
    /// vas.read and card.transmit leave one audit line per call, refused ones included, at notice
    /// even when the log level is higher, with who and where and never the APDU.
    @Test func everyCardCallIsAuditedWhateverItsOutcome() async throws {
        let memory = InMemoryLogHandler()
        var logger = Logger(label: "passtap.test.audit") { _ in memory }
        logger.logLevel = .error
        let dispatcher = MethodDispatcher(
            hub: EventHub(lineEncoder: EventNotificationEncoder(), capacity: 8), backends: ReaderBackends([]), vasReads: PassReadQueue(), daemon: Self.daemon,
            live: LiveConfiguration(Self.configuration(allowTransmit: false)))
        let peer = PeerCredentials(pid: 4242, uid: 1001, gid: 1001)
        let calls: [(String, Set<AccessRole>)] = [
            (#"{"jsonrpc":"2.0","id":1,"method":"card.transmit","params":{"reader":"pcsc:Zeta Reader 00 00","apdu":"00A4040000"}}"#, [.observe]),
            (#"{"jsonrpc":"2.0","id":2,"method":"card.transmit","params":{"reader":"pcsc:Zeta Reader 00 00","apdu":"00A4040000"}}"#, Set(AccessRole.allCases)),
            (#"{"jsonrpc":"2.0","id":3,"method":"vas.read","params":{"timeout_ms":10}}"#, Set(AccessRole.allCases)),
            (#"{"jsonrpc":"2.0","id":4,"method":"status"}"#, Set(AccessRole.allCases)),
        ]
        for (line, roles) in calls {
            _ = await dispatcher.handle(
                line: ByteBuffer(string: line), context: RequestContext(roles: roles, alreadySubscribed: false, peer: .unix(peer)), audit: logger)
        }
        let audits = memory.entries
        #expect(audits.count == 3)  // status is not audited
        #expect(audits.allSatisfy { $0.level == .notice && $0.message == "audit" })
        #expect(audits.allSatisfy { $0.metadata["peer.uid"] == "1001" && $0.metadata["peer.pid"] == "4242" })
        #expect(audits.map { $0.metadata["audit.method"]?.description } == ["card.transmit", "card.transmit", "vas.read"])
        #expect(audits.map { $0.metadata["audit.outcome"]?.description } == ["forbidden", "transmit_disabled", "invalid_params"])
        #expect(audits.map { $0.metadata["audit.reader"]?.description } == ["pcsc:Zeta Reader 00 00", "pcsc:Zeta Reader 00 00", "-"])
        #expect(!audits.contains { "\($0.metadata)".contains("00A4") })
    }
}

/// A thread-safe count for closures.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// The reader hooks' part of `readers.list` and `status`, through the dispatcher: each reader's
/// `hooks` member, and their problems in `status.health`.
@Suite(.timeLimit(.minutes(1))) struct ReaderHookPartTests {
    /// A hook with a fixed say about one reader.
    struct SayingHook: ReaderHook {
        let name = "feedback"
        let reader: ReaderID
        func tapFinished(_ access: ReaderAccess, result: ReadResult) {}
        func state(of reader: ReaderID) -> String? { reader == self.reader ? "on" : nil }
        func problems() -> [String] { ["feedback failed on \(reader)"] }
    }

    @Test func readersAndStatusCarryWhatTheHooksSay() async throws {
        let reader = ReaderID.pcsc("Zeta Reader 00 00")
        let other = ReaderID.pcsc("Alpha Reader 00 00")
        let backend = FakeReaderBackend(readers: [
            ReaderInfo(id: reader, name: "Zeta Reader 00 00", backend: "pcsc", state: .empty),
            ReaderInfo(id: other, name: "Alpha Reader 00 00", backend: "pcsc", state: .empty),
        ])
        let dispatcher = MethodDispatcher(
            hub: EventHub(lineEncoder: EventNotificationEncoder(), capacity: 8), backends: ReaderBackends([backend]), vasReads: PassReadQueue(),
            daemon: MethodHandlerTests.daemon, live: LiveConfiguration(Configuration()),
            health: HealthSources(clockSynchronised: { true }, readerHooks: ReaderHooks([SayingHook(reader: reader)])))
        func answer(_ method: String) async throws -> [String: Any] {
            guard case .reply(let line) = await dispatcher.handle(line: ByteBuffer(string: #"{"jsonrpc":"2.0","id":1,"method":"\#(method)"}"#), alreadySubscribed: false),
                let object = try JSONSerialization.jsonObject(with: Data(line.readableBytesView)) as? [String: Any],
                let result = object["result"] as? [String: Any]
            else { throw MethodHandlerTests.Failure("no result to \(method)") }
            return result
        }
        let listed = try #require(try await answer("readers.list")["readers"] as? [[String: Any]])
        // Listed by id: Alpha, then Zeta, the one the hook speaks of.
        #expect(listed.map { $0["hooks"] as? [String: String] } == [nil, ["feedback": "on"]])
        let status = try await answer("status")
        let statusReaders = try #require(status["readers"] as? [[String: Any]])
        #expect(statusReaders.map { $0["hooks"] as? [String: String] } == [nil, ["feedback": "on"]])
        // Without a ledger no backend is named; the hook's problem follows that one.
        let health = try #require(status["health"] as? [String: Any])
        #expect(health["problems"] as? [String] == ["no reader backend is configured", "feedback failed on \(reader)"])
    }
}
