import MetricsSettings
import Logging
import PassTapCore
import Testing

/// The one owner of the running configuration: what a reload swaps, and what it cannot.
@Suite(.timeLimit(.minutes(1))) struct LiveConfigurationTests {
    @Test func aReplaceSwapsTheSettingsInForceButNotWhatTheListenersWereBoundWith() {
        var started = Configuration()
        started.socket.path = "/run/a.sock"
        started.socket.group = "pos"
        started.metrics.listen = ListenAddress(host: "127.0.0.1", port: 9466)
        let live = LiveConfiguration(started)
        var reloaded = started
        reloaded.socket.group = "other"
        reloaded.socket.allowTransmit = true
        reloaded.metrics.listen = nil
        reloaded.logLevel = .debug

        #expect(live.replace(with: reloaded) == started)
        #expect(live.current == reloaded)
        #expect(live.logLevel == .debug)
        #expect(live.bound.socket == started.socket)
        #expect(live.bound.metrics == started.metrics)
    }
}
