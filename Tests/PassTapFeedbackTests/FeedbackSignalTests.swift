import FeedbackSettings
import Foundation
import Logging
import NIOCore
import PassTapCore
import PassTapProtocol
import PassTapServer
import PassTapTestSupport
import Testing

@testable import PassTapFeedback

/// `feedback.signal` through the dispatcher, and its limit per peer on the tests' clock; the
/// bytes it sends to a reader are checked on the real stack (FeedbackScenarioTests).
@Suite(.timeLimit(.minutes(1))) struct FeedbackSignalTests {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let line = #"{"jsonrpc":"2.0","id":1,"method":"feedback.signal","params":{"reader":"pcsc:ACS ACR122U 00 00","verdict":"accepted"}}"#

    /// A dispatcher serving the feedback slice's methods (no reader: every call that passes the
    /// role and the limit is answered `unknown_reader`), its limiter on `clock`.
    static func dispatcher(clock: TestClock) -> MethodDispatcher {
        var configuration = Configuration()
        configuration.feedback.enabled = true
        let live = LiveConfiguration(configuration)
        let slice = FeedbackSlice(live: live, logger: Logger(label: "test"), now: { clock.now })
        slice.readers.value = ReaderBackends([])
        return MethodDispatcher(
            hub: EventHub(lineEncoder: EventNotificationEncoder(), capacity: 8), backends: ReaderBackends([]), vasReads: PassReadQueue(),
            daemon: DaemonInfo(version: "9.9.9", instance: "instance-1", started: ContinuousClock.now), live: live, methods: slice.methods)
    }

    /// The error code of the answer to `line`, from a connection holding `roles`.
    static func errorCode(_ dispatcher: MethodDispatcher, _ line: String = line, roles: Set<AccessRole>) async throws -> Int? {
        guard case .reply(let buffer) = await dispatcher.handle(line: ByteBuffer(string: line), alreadySubscribed: false, roles: roles) else {
            throw Failure(description: "no reply to \(line)")
        }
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any])
        return (answer["error"] as? [String: Any])?["code"] as? Int
    }

    @Test func theObserveRoleIsRefusedAndTheReadRoleIsEnough() async throws {
        let dispatcher = Self.dispatcher(clock: TestClock())
        #expect(try await Self.errorCode(dispatcher, roles: [.observe]) == JSONRPCErrorCode.forbidden.rawValue)
        #expect(try await Self.errorCode(dispatcher, roles: [.read]) == JSONRPCErrorCode.unknownReader.rawValue)
    }

    @Test func aVerdictOtherThanAcceptedOrRefusedIsInvalidParams() async throws {
        let dispatcher = Self.dispatcher(clock: TestClock())
        let line = Self.line.replacingOccurrences(of: "accepted", with: "maybe")
        #expect(try await Self.errorCode(dispatcher, line, roles: [.read]) == JSONRPCErrorCode.invalidParams.rawValue)
    }

    @Test func aPeerOverTheLimitIsAnsweredRateLimitedUntilTheWindowMovesOn() async throws {
        let clock = TestClock()
        let dispatcher = Self.dispatcher(clock: clock)
        for _ in 0..<FeedbackSignalLimiter.limit {
            #expect(try await Self.errorCode(dispatcher, roles: [.read]) == JSONRPCErrorCode.unknownReader.rawValue)
        }
        #expect(try await Self.errorCode(dispatcher, roles: [.read]) == JSONRPCErrorCode.rateLimited.rawValue)
        clock.advance(by: FeedbackSignalLimiter.window)
        #expect(try await Self.errorCode(dispatcher, roles: [.read]) == JSONRPCErrorCode.unknownReader.rawValue)
    }

    @Test func eachPeerHasItsOwnLimitAndTheRetryTimeIsWhenTheOldestCallLeavesTheWindow() {
        let clock = TestClock()
        let limiter = FeedbackSignalLimiter(now: { clock.now })
        for _ in 0..<FeedbackSignalLimiter.limit {
            #expect(limiter.admit(.uid(1001)) == nil)
            clock.advance(by: .milliseconds(100))
        }
        #expect(limiter.admit(.uid(1001)) == FeedbackSignalLimiter.window - .milliseconds(100 * FeedbackSignalLimiter.limit))
        #expect(limiter.admit(.token("till")) == nil)
        #expect(limiter.admit(.uid(1002)) == nil)
    }
}
