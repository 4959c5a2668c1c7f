/// Polls `condition` every 5 ms until it holds, or throws after `seconds`: for state a reader
/// thread changes without an event to wait for (the registry's live threads, a fake's counters).
func waitUntil(_ what: String, seconds: Double = 10, _ condition: @escaping @Sendable () -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(seconds)
    while !condition() {
        guard clock.now < deadline else { throw EventRecorder.Timeout(description: "timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(5))
    }
}
