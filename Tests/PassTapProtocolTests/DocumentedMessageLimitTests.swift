import Foundation
import PassTapProtocol
import Testing

/// The message limit `docs/web.md` and `docs/socket-api.md` give is the one the code keeps
/// (``NDJSON/maximumLineBytes``, which the `/rpc` WebSocket takes for its frames and messages).
@Suite(.timeLimit(.minutes(1))) struct DocumentedMessageLimitTests {
    /// `1234567` written as the docs write figures: `1 234 567`.
    static func figure(_ value: Int) -> String {
        var digits = Array(String(value))
        var out = ""
        while digits.count > 3 {
            out = " " + String(digits.suffix(3)) + out
            digits.removeLast(3)
        }
        return String(digits) + out
    }

    static func document(_ name: String) throws -> String {
        try String(contentsOf: DocumentedEventKeysTests.document.deletingLastPathComponent().appendingPathComponent(name), encoding: .utf8)
    }

    @Test func theWebSocketMessageLimitInWebMDIsTheCodes() throws {
        let web = try Self.document("web.md")
        let section = try #require(web.range(of: "## The `/rpc` WebSocket"))
        let paragraph = String(web[section.upperBound...].prefix(700))
        #expect(paragraph.contains("at most **\(Self.figure(NDJSON.maximumLineBytes)) bytes** (\(NDJSON.maximumLineBytes / 1024) KiB)"), "\(paragraph)")
        #expect(!paragraph.contains("MiB"), "\(paragraph)")
    }

    @Test func theLineLimitInSocketAPIMDIsTheCodes() throws {
        let socket = try Self.document("socket-api.md")
        #expect(socket.contains("at most **\(Self.figure(NDJSON.maximumLineBytes)) bytes** (\(NDJSON.maximumLineBytes / 1024) KiB)"))
    }
}
