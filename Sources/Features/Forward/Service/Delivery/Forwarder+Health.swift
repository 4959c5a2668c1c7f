import ForwardSettings
import Synchronization
import PassTapCore
public import PassTapProtocol

extension Forwarder {
    /// The broken sinks, each with why, for `status.health` and systemd's `STATUS=` line (each
    /// one makes the daemon `degraded`; the watchdog's own check never looks at them).
    ///
    /// A sink is broken while the outbox cannot be opened or set up
    /// (``ForwardFailureReason/outboxUnavailable``, every configured sink), or while its last attempt failed and the events it tried wait for
    /// the next one (see ``SinkRecord/failing``). It recovers when a delivery gets through, or
    /// when nothing is left to deliver (`forward.drop`, or a reload that removes it). A receiver
    /// that refuses an event for good (dead list) has answered: that alone breaks nothing.
    public func brokenSinks() -> [(sink: String, reason: ForwardFailureReason)] {
        let configured = live.current.forward.sinks.map(\.name)
        let (outboxError, records) = state.withLock { state in
            (state.outboxError, state.running.keys.compactMap { state.records[$0] })
        }
        if outboxError != nil {
            return configured.map { ($0, .outboxUnavailable) }
        }
        return records.compactMap { record in record.failing.map { (record.name, $0.reason) } }.sorted { $0.sink < $1.sink }
    }

    /// ``brokenSinks()`` as sentences: the sink's name and the reason's class only, never a
    /// host, a role or what a server said (`status` and `STATUS=` are for everyone; the text is
    /// `forward.status`'s, for `manage`).
    public func healthProblems() -> [String] {
        brokenSinks().map { "forwarding to sink \($0.sink) fails: \($0.reason.rawValue) (passtap forward status tells more)" }
    }
}
