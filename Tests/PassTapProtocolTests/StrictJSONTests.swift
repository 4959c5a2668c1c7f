import Foundation
import PassTapProtocol
import Testing

@Suite(.timeLimit(.minutes(1))) struct StrictJSONTests {
    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":1,"method":"status"}"#,
        #" { "a" : [ 1 , -0 , 0.5 , -1.25e+10 , 2E-3 , 3e7 ] , "b" : { } , "c" : [ ] } "#,
        "\t{\"a\":true,\"b\":false,\"c\":null}\r\n",
        "null", "42", "-0", #""text""#, "[]", "[[[]]]", "{}",
        #""esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00""#,
        "\"UTF-8: é € 😀 \u{7F}\"",
        #"{"a":{"a":1},"b":[{"a":2},{"a":3}]}"#,  // one name in different objects
        #"{"\u00e9":1,"e\u0300":2}"#,  // é and è: different letters
    ])
    func strictJSONIsAccepted(text: String) throws {
        try StrictJSON.validate(Self.bytes(text))
    }

    @Test(arguments: [
        (#"{"jsonrpc":"2.0","id":1,"method":"status",}"#, StrictJSONError.Code.trailingComma, 42),
        ("[1,2,]", .trailingComma, 5),
        ("[1,2, \n]", .trailingComma, 7),
        ("\u{FEFF}{}", .byteOrderMark, 0),
        ("{} // status", .comment, 3),
        ("{/* c */}", .comment, 1),
        (#"{"a":1 /* c */}"#, .comment, 7),
        ("{\"a\":\"tab\there\"}", .controlCharacterInString, 9),
        ("\"nul\u{0}\"", .controlCharacterInString, 4),
        (#""\x41""#, .invalidEscape, 2),
        (#""\u12G4""#, .invalidEscape, 5),
        (#""\uD800""#, .unpairedSurrogate, 1),
        (#""\uDC00""#, .unpairedSurrogate, 1),
        (#""\uD800\u0041""#, .unpairedSurrogate, 1),
        ("01", .invalidNumber, 1),
        ("-", .invalidNumber, 1),
        ("+1", .invalidNumber, 0),
        (".5", .invalidNumber, 0),
        ("1.", .invalidNumber, 2),
        ("1e", .invalidNumber, 2),
        ("1e+", .invalidNumber, 3),
        ("NaN", .unexpectedByte(UInt8(ascii: "N")), 0),
        ("{'a':1}", .unexpectedByte(UInt8(ascii: "'")), 1),
        ("{a:1}", .unexpectedByte(UInt8(ascii: "a")), 1),
        (#"{"a" 1}"#, .unexpectedByte(UInt8(ascii: "1")), 5),
        ("[1 2]", .unexpectedByte(UInt8(ascii: "2")), 3),
        ("nul", .unexpectedEnd, 3),
        ("tru e", .unexpectedByte(UInt8(ascii: " ")), 3),
        (#"{"a":"#, .unexpectedEnd, 5),
        (#"{"jsonrpc":"2.0""#, .unexpectedEnd, 16),
        (#""open"#, .unexpectedEnd, 5),
        ("", .unexpectedEnd, 0),
        ("{} {}", .trailingData, 3),
        ("1 2", .trailingData, 2),
        ("[" + String(repeating: "[", count: StrictJSON.maximumDepth) + "]]", .tooDeep, StrictJSON.maximumDepth),
        // Duplicate names: RFC 8259 says they SHOULD be unique, and parsers disagree on which wins
        // (found by the rpc fuzz target: the reply carried id 1, a JSONSerialization client read "two").
        (#"{"jsonrpc":"2.0","id":1,"method":"readers.list","id":"two"}"#, .duplicateName, 48),
        (#"{"a":1,"\u0061":2}"#, .duplicateName, 7),
        (#"{"\ud83d\ude00":1,"😀":2}"#, .duplicateName, 18),
        (#"{"p":{"x":1,"x":2}}"#, .duplicateName, 12),
        // Canonically equivalent names: JSONDecoder reads them as one key.
        (#"{"\u00e9":1,"e\u0301":2}"#, .duplicateName, 12),
        (#"{"\u00C5":1,"\u212B":2}"#, .duplicateName, 12),
    ])
    func notStrictJSONIsRefusedWithWhyAndWhere(text: String, code: StrictJSONError.Code, offset: Int) {
        Self.expectRefused(code, at: offset) { try StrictJSON.validate(Self.bytes(text)) }
    }

    @Test(arguments: [
        ([0x22, 0xFF, 0x22], 1),  // never in UTF-8
        ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong '/'
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),  // overlong, three bytes
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // a UTF-16 surrogate encoded as UTF-8
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // above U+10FFFF
        ([0x22, 0xC3, 0x22], 1),  // a lead byte without its tail
        ([0x22, 0x80, 0x22], 1),  // a tail without a lead
        ([0x22, 0xE2, 0x82], 1),  // cut short at the end
        ([0x7B, 0xFF, 0x7D], 1),  // outside a string
        ([0xFE, 0xFF, 0x7B, 0x7D], 0),  // a UTF-16 byte-order mark
    ] as [([UInt8], Int)])
    func invalidUTF8IsRefused(bytes: [UInt8], offset: Int) {
        Self.expectRefused(.invalidUTF8, at: offset) { try StrictJSON.validate(bytes) }
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let depth = StrictJSON.maximumDepth
        try StrictJSON.validate(Self.bytes(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)))
        try StrictJSON.validate(Self.bytes(String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)))
    }

    @Test func aLongLineOfDeepNestingIsRefusedWithoutRecursion() {
        // 64 KiB of '[' would overflow a recursive parser's stack on a small thread.
        let line = [UInt8](repeating: UInt8(ascii: "["), count: 64 * 1024)
        Self.expectRefused(.tooDeep, at: StrictJSON.maximumDepth) { try StrictJSON.validate(line) }
    }

    /// Expects `body` to throw a ``StrictJSONError`` with `code`, at `offset` (errors are equal by
    /// code alone, so the offset is checked here).
    static func expectRefused(
        _ code: StrictJSONError.Code, at offset: Int, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) {
        let error = #expect(throws: StrictJSONError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.code == code, sourceLocation: sourceLocation)
        #expect(error?.offset == offset, sourceLocation: sourceLocation)
    }

    @Test func theDescriptionNamesTheProblemAndTheOffset() {
        #expect(StrictJSONError(.trailingComma, at: 42).description == "a trailing comma is not JSON at byte 42")
        #expect(StrictJSONError(.unexpectedByte(0x27), at: 1).description == "unexpected ''' at byte 1")
        #expect(StrictJSONError(.unexpectedByte(0x07), at: 3).description == "unexpected byte 0x07 at byte 3")
    }

    @Test func aDataSliceIsCheckedFromItsOwnStart() throws {
        let line = Data(#"xx{"a":1,}"#.utf8).dropFirst(2)
        Self.expectRefused(.trailingComma, at: 7) { try StrictJSON.validate(line) }
        try StrictJSON.validate(Data(#"xx{"a":1}"#.utf8).dropFirst(2))
    }
}
