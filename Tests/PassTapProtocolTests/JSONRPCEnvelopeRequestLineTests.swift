import Foundation
import PassTapProtocol
import Testing

/// How the server classifies a request line before looking at its method: the table of
/// `docs/socket-api.md` ("Framing") and of ``JSONRPCEnvelope/decodeRequestLine(_:)``.
@Suite(.timeLimit(.minutes(1))) struct JSONRPCEnvelopeRequestLineTests {
    @Test(arguments: [
        // Not strict JSON: -32700.
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"status",}"#.utf8), JSONRPCErrorCode.parseError),
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"status","params":{"since":1,}}"#.utf8), .parseError),
        ([0xEF, 0xBB, 0xBF] + Array(#"{"jsonrpc":"2.0","id":1,"method":"status"}"#.utf8), .parseError),
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"status"} // comment"#.utf8), .parseError),
        (Array(#"{"jsonrpc":"2.0",/* c */"id":1,"method":"status"}"#.utf8), .parseError),
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"st"#.utf8) + [0xFF] + Array(#"atus"}"#.utf8), .parseError),
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"status"}"#.utf8).dropLast() + [0xC3], .parseError),
        (Array("{'jsonrpc':'2.0','id':1,'method':'status'}".utf8), .parseError),
        (Array(#"{"jsonrpc":"2.0","id":01,"method":"status"}"#.utf8), .parseError),
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"status"}{}"#.utf8), .parseError),
        (Array("{not json".utf8), .parseError),
        // JSON, but not an object: -32600.
        (Array("null".utf8), .invalidRequest),
        (Array("42".utf8), .invalidRequest),
        (Array(#""status""#.utf8), .invalidRequest),
        (Array("true".utf8), .invalidRequest),
        (Array(#"[{"jsonrpc":"2.0","id":1,"method":"status"}]"#.utf8), .invalidRequest),
        (Array("[]".utf8), .invalidRequest),
    ] as [([UInt8], JSONRPCErrorCode)])
    func aLineThatIsNotARequestObjectGetsItsError(line: [UInt8], code: JSONRPCErrorCode) {
        guard case .failure(let error) = JSONRPCEnvelope.decodeRequestLine(Data(line)) else {
            Issue.record("accepted: \(String(decoding: line, as: UTF8.self))")
            return
        }
        #expect(error.code == code)
        #expect(error.reason == code.reason)
    }

    @Test func theParseErrorSaysWhatIsWrongAndWhere() {
        let answer = JSONRPCEnvelope.decodeRequestLine(Data(#"{"jsonrpc":"2.0","id":1,"method":"status",}"#.utf8))
        guard case .failure(let error) = answer else {
            Issue.record("a trailing comma was accepted")
            return
        }
        #expect(error.message.contains("a trailing comma is not JSON at byte 42"))
    }

    @Test func aBatchIsNamedAsSuch() {
        guard case .failure(let error) = JSONRPCEnvelope.decodeRequestLine(Data("  [1]".utf8)) else {
            Issue.record("a batch was accepted")
            return
        }
        #expect(error.message.contains("batches are not supported"))
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":1,"method":"status"}"#,
        "\t{ \"jsonrpc\" : \"2.0\" , \"id\" : 1 , \"method\" : \"status\" }  ",
        #"{"jsonrpc":"2.0","id":1,"method":"status","params":{}}"#,
        #"{"method":"status","id":1,"jsonrpc":"2.0"}"#,
    ])
    func aStrictObjectIsReadAsAnEnvelope(line: String) throws {
        let envelope = try JSONRPCEnvelope.decodeRequestLine(Data(line.utf8)).get()
        #expect(envelope.id == .number(1))
        #expect(try envelope.requestMethod().get() == "status")
    }

    @Test func anObjectThatIsNoRequestIsLeftToTheEnvelopeCheck() throws {
        let envelope = try JSONRPCEnvelope.decodeRequestLine(Data(#"{"id":"x"}"#.utf8)).get()
        #expect(envelope.id == .string("x"))
        guard case .failure(let error) = envelope.requestMethod() else {
            Issue.record("an envelope without jsonrpc and method was taken for a request")
            return
        }
        #expect(error.code == .invalidRequest)
    }
}
