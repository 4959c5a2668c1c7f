import InMemoryLogging
import Logging
import PassTapCore
import Testing

/// A reload changes `[log] level` for every logger at once, through one ``LogLevelSetting``.
@Suite(.timeLimit(.minutes(1))) struct ReloadableLevelLogHandlerTests {
    @Test func everyLoggerFollowsTheSharedLevelAsItChanges() {
        let memory = InMemoryLogHandler()
        let setting = LogLevelSetting(.info)
        let first = Logger(label: "passtap.test.one") { _ in ReloadableLevelLogHandler(wrapping: memory, setting: setting) }
        let second = Logger(label: "passtap.test.two") { _ in ReloadableLevelLogHandler(wrapping: memory, setting: setting) }
        first.debug("hidden at info")
        first.info("shown at info")
        setting.level = .debug
        second.debug("shown at debug")
        setting.level = .error
        first.warning("hidden at error")
        second.error("shown at error")
        #expect(memory.entries.map(\.message.description) == ["shown at info", "shown at debug", "shown at error"])
        #expect(first.logLevel == .error && setting.level == .error)
    }

    @Test func aLoggerThatSetsItsOwnLevelKeepsItAndLeavesTheOthersAlone() {
        let memory = InMemoryLogHandler()
        let setting = LogLevelSetting(.info)
        var audit = Logger(label: "passtap.test.audit") { _ in ReloadableLevelLogHandler(wrapping: memory, setting: setting) }
        let other = Logger(label: "passtap.test.other") { _ in ReloadableLevelLogHandler(wrapping: memory, setting: setting) }
        audit.logLevel = .notice
        setting.level = .trace
        #expect(audit.logLevel == .notice && other.logLevel == .trace)
        audit.info("hidden: below the audit logger's own level")
        other.trace("shown: the shared level")
        #expect(memory.entries.map(\.message.description) == ["shown: the shared level"])
    }
}
