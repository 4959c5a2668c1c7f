public import Logging
public import PassTapCore
public import PassTapServer
public import FeedbackSettings

/// Reader feedback as the daemon runs it (docs/feedback.md): its reader-side hook, which plays
/// each tap's pattern once the result is published and says per reader whether the reader takes
/// it; `feedback.signal`, the POS's verdict played on a reader; and on a reload that removes
/// `[feedback]`, the readers' own detection beep turned back on.
package struct FeedbackSlice: FeatureSlice {
    package let name = "feedback"
    /// The hook every reader runs after a tap.
    package let hook: FeedbackHook
    /// The daemon's readers, which `feedback.signal` sends to: made after the slices, so bound
    /// by the daemon once they exist.
    package let readers = LateBound<ReaderBackends>()
    private let live: LiveConfiguration
    private let limiter: FeedbackSignalLimiter

    /// Feedback reading `[feedback]` from `live` at each tap; `now` is `feedback.signal`'s rate
    /// limiter's clock; the readers whose beep it silenced are kept in `stateDirectory`
    /// (systemd's `$STATE_DIRECTORY`), when there is one.
    package init(
        live: LiveConfiguration, logger: Logger, stateDirectory: String? = nil,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        hook = FeedbackHook(settings: { live.current.feedback }, logger: logger, stateDirectory: stateDirectory)
        self.live = live
        limiter = FeedbackSignalLimiter(now: now)
    }

    package var readerHooks: [any ReaderHook] { [hook] }

    /// On a reload that stops silencing the readers' own beep, it is turned back on.
    package var configurationObserver: (any ConfigurationObserver)? { FeedbackReload(hook: hook, readers: readers) }

    package var methods: [any MethodHandler] {
        [FeedbackSignalHandler(hook: hook, readers: readers, limiter: limiter, settings: { [live] in live.current.feedback })]
    }
}
