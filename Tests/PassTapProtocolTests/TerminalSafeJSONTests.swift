import Foundation
import ISO7816
import PassTapCore
import PassTapProtocol
import Testing
import VAS

/// What `passtap --json` prints (``StrictJSON/terminalSafe(_:)``): still JSON, parsing to the
/// same values, with no control or bidirectional character raw.
@Suite(.timeLimit(.minutes(1))) struct TerminalSafeJSONTests {
    /// Every character of UntrustedText's table, and ordinary text around them: an emoji (outside
    /// the BMP), quotes, backslashes and a literal `\u202E` written as text.
    static let hostile: String = {
        var text = "pass \"42\" \\ \\u202E é 😀 "
        let table: [ClosedRange<UInt32>] = [0x00...0x1F, 0x7F...0x9F, 0x061C...0x061C, 0x200E...0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028...0x2029]
        for range in table {
            for value in range { text.unicodeScalars.append(Unicode.Scalar(value)!) }
        }
        return text + " end"
    }()

    static func parsed(_ text: String) throws -> NSObject {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) as? NSObject)
    }

    static func hasRawControl(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: UntrustedText.mustEscape)
    }

    @Test func anEncodedValueParsesBackToTheSameValuesWithNothingRaw() throws {
        let value = ["message": Self.hostile, Self.hostile: "as a member name", "list": "\u{9B}31m \u{202E}txt.exe"]
        let encoded = try NDJSON.makeEncoder().encode(value)
        #expect(Self.hasRawControl(String(decoding: encoded, as: UTF8.self)), "the encoder leaves some raw: the case this is for")
        let safe = try StrictJSON.terminalSafe(encoded)
        #expect(!Self.hasRawControl(safe))
        #expect(try Self.parsed(safe) == Self.parsed(String(decoding: encoded, as: UTF8.self)))
        #expect(try JSONDecoder().decode([String: String].self, from: Data(safe.utf8)) == value)
        #expect(safe.contains(#"\u202e"#) && safe.contains(#"\u009b"#) && safe.contains(#"\u007f"#))
    }

    @Test func aDaemonLineKeepsItsBytesButForTheEscapedCharacters() throws {
        // A raw C1 CSI and an RLO inside a string; member order, number spelling and the
        // escapes already there stay as sent.
        let line = "{\"z\":1.50,\"a\":\"\u{9B}2J\\n\u{202E}x\",\"n\":null,\"t\":[true,false]}"
        let safe = try StrictJSON.terminalSafe(Data(line.utf8))
        #expect(safe == #"{"z":1.50,"a":"\u009b2J\n\u202ex","n":null,"t":[true,false]}"#)
        #expect(try Self.parsed(safe) == Self.parsed(line))
    }

    @Test func aReadResultWithAHostileMessageIsPrintedEscaped() throws {
        var entry = VASEntry(passTypeID: "pass.com.example.coffee", status: .success, sw: "9000")
        entry.publish(VASPayload(timestampRaw: 817_038_360, message: Array(Self.hostile.utf8)), variant: .a)
        let encoded = try NDJSON.makeEncoder().encode(entry)
        let safe = try StrictJSON.terminalSafe(encoded)
        #expect(!Self.hasRawControl(safe))
        let decoded = try JSONDecoder().decode(VASEntry.self, from: Data(safe.utf8))
        #expect(decoded.payload?.messageText == Self.hostile)
    }

    @Test func textWithoutSuchCharactersIsUnchanged() throws {
        let line = #"{"jsonrpc":"2.0","method":"event","params":{"seq":1,"kind":"backend.up","backend":"nfc","reason":null,"t":"é 😀 \u001b"}}"#
        #expect(try StrictJSON.terminalSafe(Data(line.utf8)) == line)
    }

    @Test(arguments: ["{\"a\":1,}", "not json", "{\"a\":\"\u{1B}\"}", "{\"a\":1}{\"b\":2}"])
    func aLineThatIsNotStrictJSONIsRefused(line: String) {
        #expect(throws: StrictJSONError.self) { try StrictJSON.terminalSafe(Data(line.utf8)) }
    }
}
