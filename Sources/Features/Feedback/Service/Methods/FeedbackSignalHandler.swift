import FeedbackSettings
import Logging
import PassTapCore
import PassTapProtocol
import PassTapServer

/// `feedback.signal`: the POS's verdict (`accepted`, `refused`) played on a reader, after the
/// tap (docs/feedback.md, "The POS's verdict"). Role `read`, so a web token with `read` may call
/// it; rate-limited per peer (``FeedbackSignalLimiter``); audited (who, which reader, the
/// outcome). The pattern is sent on the reader's own thread, queued behind its session, and the
/// answer waits until the reader took it.
struct FeedbackSignalHandler: MethodHandler {
    static let method = RPCMethod.feedbackSignal
    static let role = AccessRole.read
    static let isAudited = true
    static func auditedReader(of params: FeedbackSignalParams) -> ReaderID? { params.reader }

    let hook: FeedbackHook
    /// The daemon's readers, bound once they exist (after the slices).
    let readers: LateBound<ReaderBackends>
    let limiter: FeedbackSignalLimiter
    let settings: @Sendable () -> Configuration.Feedback

    func handle(_ params: FeedbackSignalParams, context: RequestContext) async -> MethodReply<FeedbackSignalResult> {
        if let retry = limiter.admit(context.peer.owner) {
            let milliseconds = retry.retryAfterMilliseconds
            var error = JSONRPCError(
                .rateLimited,
                "too many feedback.signal calls: at most \(FeedbackSignalLimiter.limit) in \(FeedbackSignalLimiter.window) per user or token; retry in \(milliseconds) ms")
            error.data?.retryAfterMilliseconds = milliseconds
            return .failure(error)
        }
        guard let readers = readers.value else { return .failure(ReaderCommandError.shuttingDown.jsonRPCError) }
        let outcome: FeedbackOutcome = params.verdict == .accepted ? .accepted : .refused
        let hook = hook
        do {
            let played = try await readers.perform(on: params.reader) { access in hook.signal(outcome, on: access) }
            switch played {
            case .success(let path):
                if path == .escape, let pattern = settings().patterns[outcome] {
                    turnOffLater(params.reader, after: pattern.duration, readers: readers)
                }
                return .result(FeedbackSignalResult(reader: params.reader, verdict: params.verdict, path: path))
            case .failure(let refusal):
                var error = JSONRPCError(.feedbackUnavailable, refusal.message)
                error.data?.code = refusal.code
                return .failure(error)
            }
        } catch {
            return .failure(error.jsonRPCError)
        }
    }

    /// An ACR1252U's LEDs, lit by an escape pattern, off once the pattern's time is over: the
    /// wait is a task's sleep, the command a job on the reader's thread.
    private func turnOffLater(_ reader: ReaderID, after duration: Duration, readers: ReaderBackends) {
        guard settings().model(ofReaderNamed: reader.name) == .acr1252u else { return }
        let hook = hook
        Task {
            try? await Task.sleep(for: duration)
            _ = try? await readers.perform(on: reader) { access in hook.escapeLEDOff(access) }
        }
    }
}
