/// Polls `condition` every 5 ms until it holds, or throws ``DeadlineExceeded`` after `seconds`:
/// for state that changes without an event to wait for (a registry's live threads, a fake's
/// counters, a server's open connections). Where there is an event, wait for it instead.
public func waitUntil(_ what: String, seconds: Double = defaultDeadlineSeconds, _ condition: @escaping @Sendable () -> Bool) async throws {
    try await withDeadline(what, seconds: seconds) {
        while !condition() { try await Task.sleep(for: .milliseconds(5)) }
    }
}
