import InMemoryLogging
import Logging
import PassTapCore
import Testing

@Suite(.timeLimit(.minutes(1))) struct EscapingLogHandlerTests {
    private static let title = "\u{1B}]0;pwned\u{07}"
    private static let escapedTitle = "\\u{1B}]0;pwned\\u{7}"

    private struct Described: CustomStringConvertible, Sendable {
        var description: String { "reader \u{202E}evil\u{9B}" }
    }

    private struct CardError: Error, CustomStringConvertible {
        var description: String { "label \(EscapingLogHandlerTests.title)" }
    }

    /// A logger whose records land, escaped, in the returned in-memory handler.
    private func makeLogger() -> (Logger, InMemoryLogHandler) {
        let memory = InMemoryLogHandler()
        var logger = Logger(label: "passtap.test.escaping") { _ in EscapingLogHandler(wrapping: memory) }
        logger.logLevel = .trace
        return (logger, memory)
    }

    @Test func everyStringInTheMetadataIsEscapedNestedOnesIncluded() throws {
        let (logger, memory) = makeLogger()
        logger.info(
            "Session done",
            metadata: [
                "reader.id": "\(Self.title)",
                "described": .stringConvertible(Described()),
                "list": .array([.string("a\nb"), .array([.string("\u{2066}x")])]),
                "table": .dictionary(["label": .string("\u{7F}\r")]),
            ])
        let entry = try #require(memory.entries.first)
        #expect(entry.metadata["reader.id"] == .string(Self.escapedTitle))
        #expect(entry.metadata["described"] == .string("reader \\u{202E}evil\\u{9B}"))
        #expect(entry.metadata["list"] == .array([.string("a\\u{A}b"), .array([.string("\\u{2066}x")])]))
        #expect(entry.metadata["table"] == .dictionary(["label": .string("\\u{7F}\\u{D}")]))
    }

    @Test func theMessageAndTheLoggersOwnMetadataAreEscapedToo() throws {
        var (logger, memory) = makeLogger()
        logger[metadataKey: "reader.name"] = "\(Self.title)"
        logger.warning("Reader \(Self.title) gone")
        let entry = try #require(memory.entries.first)
        #expect(entry.message.description == "Reader \(Self.escapedTitle) gone")
        #expect(entry.metadata["reader.name"] == .string(Self.escapedTitle))
        #expect(entry.level == .warning)
    }

    @Test func anAttachedErrorBecomesEscapedMetadata() throws {
        let (logger, memory) = makeLogger()
        logger.error("Session ended early", error: CardError())
        let entry = try #require(memory.entries.first)
        #expect(entry.metadata["error.message"] == .string("label \(Self.escapedTitle)"))
        #expect(entry.error == nil)
    }

    @Test func plainTextPassesUnchanged() throws {
        let (logger, memory) = makeLogger()
        logger.info("listening", metadata: ["socket.path": "/run/passtap/passtapd.sock", "reader.id": "pcsc:ACS ACR1252 1S CL Reader [ACR1252 1S CL Reader(1)] 00 00"])
        let entry = try #require(memory.entries.first)
        #expect(entry.message.description == "listening")
        #expect(entry.metadata["socket.path"] == .string("/run/passtap/passtapd.sock"))
        #expect(entry.metadata["reader.id"] == .string("pcsc:ACS ACR1252 1S CL Reader [ACR1252 1S CL Reader(1)] 00 00"))
    }

    @Test func theLevelIsTheWrappedHandlers() {
        var handler = EscapingLogHandler(wrapping: InMemoryLogHandler())
        handler.logLevel = .debug
        #expect(handler.logLevel == .debug)
    }
}
