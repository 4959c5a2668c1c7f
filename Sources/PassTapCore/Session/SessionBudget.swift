/// One tap's time budget (`[session] budget_ms`): checked before every exchange with the card, so
/// a session that is over it ends between two exchanges with `session_timeout`.
///
/// A card that answers every APDU just inside the reader's timeout, or keeps a phone-sized list of
/// AIDs and merchants going, would otherwise hold the reader for as long as it likes. An exchange
/// already under way is not cut: a tap takes at most the budget plus one exchange's own timeout.
struct SessionBudget {
    /// The budget; `nil` for none.
    let limit: Duration?
    /// When the session started, on the engine's monotonic clock.
    let start: ContinuousClock.Instant
    /// The engine's clock (its monotonic ``DaemonClock/now``).
    let clock: DaemonClock

    /// A budget of `limit` starting now.
    init(limit: Duration?, clock: DaemonClock) {
        self.limit = limit
        self.start = clock.now
        self.clock = clock
    }

    /// Throws `session_timeout` once more than the budget has gone by since the session started.
    func check() throws(CardTransportError) {
        guard let limit else { return }
        let elapsed = clock.now - start
        guard elapsed > limit else { return }
        let took = Int(elapsed / .milliseconds(1))
        let budget = Int(limit / .milliseconds(1))
        throw CardTransportError(
            .sessionTimeout,
            "the session took \(took) ms, over its \(budget) ms budget ([session] budget_ms); it ended before the next exchange")
    }
}
