public import Logging
public import PassTapCore
public import PassTapServer
public import FeedbackSettings

/// Reader feedback as the daemon runs it (docs/feedback.md): its reader-side hook, which plays
/// each tap's pattern once the result is published and says per reader whether the reader takes
/// it.
package struct FeedbackSlice: FeatureSlice {
    package let name = "feedback"
    /// The hook every reader runs after a tap.
    package let hook: FeedbackHook

    /// Feedback reading `[feedback]` from `live` at each tap.
    package init(live: LiveConfiguration, logger: Logger) {
        hook = FeedbackHook(settings: { live.current.feedback }, logger: logger)
    }

    package var readerHooks: [any ReaderHook] { [hook] }
}
