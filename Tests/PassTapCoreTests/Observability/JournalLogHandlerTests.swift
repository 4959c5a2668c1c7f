import Foundation
import Logging
import PassTapCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Lines for systemd's journal: `<N>` with the syslog priority of the level, one line per event.
@Suite struct JournalLogHandlerTests {
    final class Lines: Sendable {
        let written = Mutex<[String]>([])
    }

    private func logger(_ lines: Lines) -> Logger {
        Logger(label: "passtapd") { label in
            var handler = JournalLogHandler(label: label) { line in lines.written.withLock { $0.append(line) } }
            handler.logLevel = .trace
            return handler
        }
    }

    @Test func eachLevelCarriesItsSyslogPriority() {
        let lines = Lines()
        let logger = logger(lines)
        logger.critical("c")
        logger.error("e")
        logger.warning("w")
        logger.notice("n")
        logger.info("i")
        logger.debug("d")
        logger.trace("t")
        #expect(lines.written.withLock { $0 }.map { String($0.prefix(3)) } == ["<2>", "<3>", "<4>", "<5>", "<6>", "<7>", "<7>"])
    }

    @Test func aLineHasLabelLevelMessageAndSortedMetadataAndNoInnerNewline() {
        let lines = Lines()
        logger(lines).warning("two\nlines", metadata: ["reader.id": "pcsc:x", "a": "1"])
        #expect(lines.written.withLock { $0 } == ["<4>passtapd warning: two lines a=1 reader.id=pcsc:x\n"])
    }

    /// passtapd's EscapingLogHandler hands the provider on at every start; a handler without the
    /// property made swift-log log a warning for it into the journal.
    @Test func aMetadataProviderIsKeptAndItsMetadataLogged() {
        let lines = Lines()
        var handler = JournalLogHandler(label: "passtapd") { line in lines.written.withLock { $0.append(line) } }
        handler.metadataProvider = Logger.MetadataProvider { ["task.id": "7"] }
        #expect(handler.metadataProvider != nil)
        Logger(label: "passtapd") { _ in handler }.info("hi", metadata: ["a": "1"])
        #expect(lines.written.withLock { $0 } == ["<6>passtapd info: hi a=1 task.id=7\n"])
    }

    @Test func stderrIsTheJournalStreamOnlyWhenDeviceAndInodeMatch() {
        var status = stat()
        #expect(fstat(STDERR_FILENO, &status) == 0)
        #expect(JournalLogHandler.isJournalStream(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"]))
        #expect(!JournalLogHandler.isJournalStream(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino + 1)"]))
        #expect(!JournalLogHandler.isJournalStream(environment: ["JOURNAL_STREAM": "garbage"]))
        #expect(!JournalLogHandler.isJournalStream(environment: [:]))
    }
}
