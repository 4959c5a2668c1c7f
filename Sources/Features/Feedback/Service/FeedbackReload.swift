import FeedbackSettings
public import PassTapCore

/// What reader feedback does on a reload: when the new configuration no longer silences the
/// readers' own detection beep (`[feedback]` removed or off, or `silence_detection_beep = false`),
/// each reader this run silenced gets its beep back, through a job on its own thread.
struct FeedbackReload: ConfigurationObserver {
    let hook: FeedbackHook
    let readers: LateBound<ReaderBackends>

    func configurationChanged(from old: Configuration, to new: Configuration) async {
        let silenced = old.feedback.enabled && old.feedback.silenceDetectionBeep
        let silences = new.feedback.enabled && new.feedback.silenceDetectionBeep
        guard silenced, !silences, let readers = readers.value else { return }
        let hook = hook
        for reader in hook.silencedReaders {
            _ = try? await readers.perform(on: reader) { access in hook.restoreDetectionBeep(access) }
        }
    }
}
