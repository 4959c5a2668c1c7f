import WebSettings
import ForwardSettings
import Foundation
import InMemoryLogging
import Logging
import NIOCore
import PassTapCore
import PassTapForward
import PassTapProtocol
import Synchronization
import Testing

@testable import PassTapServer

/// A ``ForwardControl`` that records each call and answers from a fixed list of sinks: the
/// socket side of forwarding tested without a forwarder.
final class RecordingForwardControl: ForwardControl {
    /// `("retry", "loyalty")`, in call order; `status` calls too.
    let calls = Mutex<[(String, String?)]>([])
    let sinks: [ForwardSinkStatus]
    /// When set, retry and drop fail with `outbox_unavailable`.
    let outboxFailure: String?

    /// Sinks named `sinks`, each with `lastError` as its last error.
    init(sinks: [String] = ["loyalty"], outboxFailure: String? = nil, lastError: (ForwardFailureReason, String) = (.httpStatus, "HTTP 503")) {
        self.sinks = sinks.map {
            ForwardSinkStatus(
                name: $0, type: .webhook, state: .active, pending: 3, oldestPendingAgeMilliseconds: 1500, dead: 2, delivered: 40,
                lastError: lastError.1, lastErrorReason: lastError.0, retryInMilliseconds: 800, dropAt: nil)
        }
        self.outboxFailure = outboxFailure
    }

    func status() async -> ForwardStatusResult {
        calls.withLock { $0.append(("status", nil)) }
        return ForwardStatusResult(enabled: true, source: "till-3", pendingBytes: 5120, maxPendingBytes: 1 << 20, dropped: 1, sinks: sinks)
    }

    func retry(sink: String) async throws(ForwardControlError) -> ForwardRetryResult {
        try check("retry", sink)
        return ForwardRetryResult(sink: sink, requeued: 2)
    }

    func drop(sink: String) async throws(ForwardControlError) -> ForwardDropResult {
        try check("drop", sink)
        return ForwardDropResult(sink: sink, dropped: 5)
    }

    private func check(_ call: String, _ sink: String) throws(ForwardControlError) {
        calls.withLock { $0.append((call, sink)) }
        if let outboxFailure { throw .outboxUnavailable(outboxFailure) }
        guard sinks.contains(where: { $0.name == sink }) else { throw .unknownSink(sink) }
    }

    var recorded: [String] { calls.withLock { $0.map { $0.0 + ($0.1.map { " " + $0 } ?? "") } } }
}

/// `forward.status`, `forward.retry` and `forward.drop` through the dispatcher: roles, the answer
/// without a forwarder, error codes and audit lines.
@Suite(.timeLimit(.minutes(1))) struct ForwardMethodTests {
    static let daemon = DaemonInfo(version: "9.9.9", instance: "instance-1", started: ContinuousClock.now)

    static func dispatcher(_ forward: (any ForwardControl)?, configuration: Configuration = Configuration()) -> MethodDispatcher {
        MethodDispatcher(
            hub: EventHub(lineEncoder: EventNotificationEncoder(), capacity: 8), backends: ReaderBackends([]), vasReads: PassReadQueue(),
            daemon: daemon, live: LiveConfiguration(configuration),
            methods: ForwardSlice.methods(forward: forward, settings: { configuration.forward }))
    }

    /// The answer object to `line` from a connection holding `roles`.
    static func answer(
        _ dispatcher: MethodDispatcher, _ line: String, roles: Set<AccessRole>, audit: Logger? = nil
    ) async throws -> [String: Any] {
        let context = RequestContext(roles: roles, alreadySubscribed: false, peer: .unix(PeerCredentials(pid: 4242, uid: 1001, gid: 1001)))
        guard case .reply(let buffer) = await dispatcher.handle(line: ByteBuffer(string: line), context: context, audit: audit) else {
            throw MethodHandlerTests.Failure("no reply to \(line)")
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any])
    }

    static func errorCode(_ answer: [String: Any]) -> Int? { (answer["error"] as? [String: Any])?["code"] as? Int }
    static func reason(_ answer: [String: Any]) -> String? { ((answer["error"] as? [String: Any])?["data"] as? [String: Any])?["reason"] as? String }

    static let status = #"{"jsonrpc":"2.0","id":1,"method":"forward.status"}"#
    static func retry(_ sink: String) -> String { #"{"jsonrpc":"2.0","id":2,"method":"forward.retry","params":{"sink":"\#(sink)"}}"# }
    static func drop(_ sink: String) -> String { #"{"jsonrpc":"2.0","id":3,"method":"forward.drop","params":{"sink":"\#(sink)"}}"# }

    @Test func withoutAForwarderStatusSaysOffAndNoSinkIsKnown() async throws {
        var configuration = Configuration()
        configuration.forward.maxPendingBytes = 2 << 20
        configuration.forward.source = "till-9"
        let dispatcher = Self.dispatcher(nil, configuration: configuration)
        let all = Set(AccessRole.allCases)
        let status = try #require(try await Self.answer(dispatcher, Self.status, roles: all)["result"] as? [String: Any])
        #expect(status["enabled"] as? Bool == false && (status["sinks"] as? [Any])?.isEmpty == true)
        #expect(status["source"] as? String == "till-9" && status["max_pending_bytes"] as? Int == 2 << 20 && status["pending_bytes"] as? Int == 0)
        for line in [Self.retry("loyalty"), Self.drop("loyalty")] {
            let answer = try await Self.answer(dispatcher, line, roles: all)
            #expect(Self.errorCode(answer) == -32021 && Self.reason(answer) == "unknown_sink", "\(answer)")
        }
    }

    @Test func observeMayAskTheStatusButOnlyManageMayRetryOrDrop() async throws {
        let control = RecordingForwardControl()
        let dispatcher = Self.dispatcher(control)
        let status = try #require(try await Self.answer(dispatcher, Self.status, roles: [.observe])["result"] as? [String: Any])
        #expect(status["enabled"] as? Bool == true && status["source"] as? String == "till-3")
        let sink = try #require((status["sinks"] as? [[String: Any]])?.first)
        #expect(sink["name"] as? String == "loyalty" && sink["oldest_pending_age_ms"] as? Int == 1500 && sink["drop_at"] is NSNull)
        for line in [Self.retry("loyalty"), Self.drop("loyalty")] {
            for roles: Set<AccessRole> in [[.observe], [.observe, .read, .transmit]] {
                let answer = try await Self.answer(dispatcher, line, roles: roles)
                #expect(Self.errorCode(answer) == -32014 && Self.reason(answer) == "forbidden", "\(answer)")
            }
        }
        #expect(control.recorded == ["status"])
        let retried = try #require(try await Self.answer(dispatcher, Self.retry("loyalty"), roles: [.manage])["result"] as? [String: Any])
        #expect(retried["sink"] as? String == "loyalty" && retried["requeued"] as? Int == 2)
        let dropped = try #require(try await Self.answer(dispatcher, Self.drop("loyalty"), roles: [.manage])["result"] as? [String: Any])
        #expect(dropped["sink"] as? String == "loyalty" && dropped["dropped"] as? Int == 5)
        #expect(control.recorded == ["status", "retry loyalty", "drop loyalty"])
        // Without observe, not even the status.
        #expect(Self.errorCode(try await Self.answer(dispatcher, Self.status, roles: [.manage])) == -32014)
    }

    /// A last error may name the database host, the role and what the server said: only
    /// `manage` gets its text; `observe` alone (every local user by default, every web token)
    /// gets the counts and the class.
    @Test func onlyManageSeesTheLastErrorsTextObserveGetsItsClass() async throws {
        let text = #"connecting to db.internal.example:5432: authentication failed: password authentication failed for user "passtap_till3" (SQLSTATE 28P01)"#
        let dispatcher = Self.dispatcher(RecordingForwardControl(lastError: (.auth, text)))
        for roles: Set<AccessRole> in [[.observe], [.observe, .read, .transmit]] {
            let answer = try await Self.answer(dispatcher, Self.status, roles: roles)
            let sink = try #require(((answer["result"] as? [String: Any])?["sinks"] as? [[String: Any]])?.first, "\(answer)")
            #expect(sink["last_error"] is NSNull, "\(sink)")
            #expect(sink["last_error_reason"] as? String == "auth", "\(sink)")
            #expect(sink["pending"] as? Int == 3 && sink["dead"] as? Int == 2 && sink["delivered"] as? Int == 40 && sink["retry_in_ms"] as? Int == 800)
            let whole = String(describing: answer)
            #expect(!whole.contains("db.internal.example") && !whole.contains("passtap_till3") && !whole.contains("28P01"), "\(whole)")
        }
        let manager = try await Self.answer(dispatcher, Self.status, roles: [.observe, .manage])
        let sink = try #require(((manager["result"] as? [String: Any])?["sinks"] as? [[String: Any]])?.first, "\(manager)")
        #expect(sink["last_error"] as? String == text && sink["last_error_reason"] as? String == "auth", "\(sink)")
    }

    @Test func theForwardersErrorsBecomeUnknownSinkAndOutboxUnavailable() async throws {
        let unknown = try await Self.answer(Self.dispatcher(RecordingForwardControl()), Self.retry("fleet"), roles: [.manage])
        #expect(Self.errorCode(unknown) == -32021 && Self.reason(unknown) == "unknown_sink", "\(unknown)")
        #expect(((unknown["error"] as? [String: Any])?["message"] as? String)?.contains("\"fleet\"") == true, "\(unknown)")
        let failing = Self.dispatcher(RecordingForwardControl(outboxFailure: "disk I/O error"))
        let unavailable = try await Self.answer(failing, Self.drop("loyalty"), roles: [.manage])
        #expect(Self.errorCode(unavailable) == -32022 && Self.reason(unavailable) == "outbox_unavailable", "\(unavailable)")
        #expect(((unavailable["error"] as? [String: Any])?["message"] as? String)?.contains("disk I/O error") == true, "\(unavailable)")
        #expect(ForwardControlError.unknownSink("x").jsonRPCError.code == .unknownSink)
        #expect(ForwardControlError.outboxUnavailable("x").jsonRPCError.code == .outboxUnavailable)
    }

    @Test func retryAndDropAreAuditedWithWhoTheSinkAndTheOutcomeStatusIsNot() async throws {
        let memory = InMemoryLogHandler()
        var logger = Logger(label: "passtap.test.audit") { _ in memory }
        logger.logLevel = .error
        let dispatcher = Self.dispatcher(RecordingForwardControl())
        _ = try await Self.answer(dispatcher, Self.status, roles: Set(AccessRole.allCases), audit: logger)
        _ = try await Self.answer(dispatcher, Self.retry("loyalty"), roles: [.observe], audit: logger)
        _ = try await Self.answer(dispatcher, Self.retry("loyalty"), roles: [.manage], audit: logger)
        _ = try await Self.answer(dispatcher, Self.drop("fleet"), roles: [.manage], audit: logger)
        let audits = memory.entries
        #expect(audits.count == 3)
        #expect(audits.allSatisfy { $0.level == .notice && $0.message == "audit" })
        #expect(audits.allSatisfy { $0.metadata["peer.uid"] == "1001" && $0.metadata["peer.pid"] == "4242" })
        #expect(audits.map { $0.metadata["audit.method"]?.description } == ["forward.retry", "forward.retry", "forward.drop"])
        #expect(audits.map { $0.metadata["audit.sink"]?.description } == ["loyalty", "loyalty", "fleet"])
        #expect(audits.map { $0.metadata["audit.outcome"]?.description } == ["forbidden", "ok", "unknown_sink"])
        #expect(audits.allSatisfy { $0.metadata["audit.reader"] == nil })
    }
}
