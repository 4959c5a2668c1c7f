import InMemoryLogging
import Logging
import PassTapCore
import Testing

/// A reload changes `[log] level` for every logger at once, through the one ``LiveConfiguration``.
@Suite(.timeLimit(.minutes(1))) struct ReloadableLevelLogHandlerTests {
    static func level(_ level: Logger.Level) -> Configuration {
        var configuration = Configuration()
        configuration.logLevel = level
        return configuration
    }

    @Test func everyLoggerFollowsTheSharedLevelAsItChanges() {
        let memory = InMemoryLogHandler()
        let live = LiveConfiguration(Self.level(.info))
        let first = Logger(label: "passtap.test.one") { _ in ReloadableLevelLogHandler(wrapping: memory, live: live) }
        let second = Logger(label: "passtap.test.two") { _ in ReloadableLevelLogHandler(wrapping: memory, live: live) }
        first.debug("hidden at info")
        first.info("shown at info")
        live.replace(with: Self.level(.debug))
        second.debug("shown at debug")
        live.replace(with: Self.level(.error))
        first.warning("hidden at error")
        second.error("shown at error")
        #expect(memory.entries.map(\.message.description) == ["shown at info", "shown at debug", "shown at error"])
        #expect(first.logLevel == .error && live.logLevel == .error)
    }

    @Test func aLoggerThatSetsItsOwnLevelKeepsItAndLeavesTheOthersAlone() {
        let memory = InMemoryLogHandler()
        let live = LiveConfiguration(Self.level(.info))
        var audit = Logger(label: "passtap.test.audit") { _ in ReloadableLevelLogHandler(wrapping: memory, live: live) }
        let other = Logger(label: "passtap.test.other") { _ in ReloadableLevelLogHandler(wrapping: memory, live: live) }
        audit.logLevel = .notice
        live.replace(with: Self.level(.trace))
        #expect(audit.logLevel == .notice && other.logLevel == .trace)
        audit.info("hidden: below the audit logger's own level")
        other.trace("shown: the shared level")
        #expect(memory.entries.map(\.message.description) == ["shown: the shared level"])
    }
}
