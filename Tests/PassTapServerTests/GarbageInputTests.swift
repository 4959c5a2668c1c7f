import Foundation
import ISO7816
import PassTapCore
import PassTapProtocol
import PassTapServer
import PassTapTestNetwork
import Testing

@Suite(.timeLimit(.minutes(1))) struct GarbageInputTests {
    private static let status = #"{"jsonrpc":"2.0","id":99,"method":"status"}"#

    @Test(arguments: [
        ("{not json", JSONRPCErrorCode.parseError),
        ("\u{FF}\u{FE}", .parseError),
        (#"{"jsonrpc":"2.0","id":1,"method":"status""#, .parseError),
        (#"[{"jsonrpc":"2.0","id":1,"method":"status"}]"#, .invalidRequest),
        ("42", .invalidRequest),
        (#"{"id":1,"method":"status"}"#, .invalidRequest),
        (#"{"jsonrpc":"1.0","id":1,"method":"status"}"#, .invalidRequest),
        (#"{"jsonrpc":"2.0","id":1,"method":7}"#, .invalidRequest),
        (#"{"jsonrpc":"2.0","id":1,"method":"card.explode"}"#, .methodNotFound),
        (#"{"jsonrpc":"2.0","id":1,"method":"status","params":[1]}"#, .invalidParams),
        (#"{"jsonrpc":"2.0","id":1,"method":"status","params":{"verbose":true}}"#, .invalidParams),
        (#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"since":"x"}}"#, .invalidParams),
        (#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"sinse":1}}"#, .invalidParams),
        (#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"kinds":["card.exploded"]}}"#, .invalidParams),
        (#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"kinds":[]}}"#, .invalidParams),
        (#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"since":500}}"#, .invalidParams),
    ])
    func aBadLineGetsItsErrorAndTheConnectionStillAnswers(line: String, code: JSONRPCErrorCode) async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                let answer = try await client.call(line)
                guard case .failure(let error) = answer.outcome else {
                    Issue.record("no error for \(line)")
                    return
                }
                #expect(error.code == code)
                #expect(error.reason == code.reason)
                #expect(!error.message.isEmpty)
                let status = try await client.call(Self.status, expecting: StatusResult.self)
                #expect(status.id == .number(99))
                #expect(try status.outcome.get().instance == harness.daemon.instance)
            }
        }
    }

    /// The malformed lines of docs/socket-api.md, "Framing", through a real socket;
    /// `JSONRPCEnvelopeRequestLineTests` has the full table.
    @Test(arguments: [
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"status",}"#.utf8), JSONRPCErrorCode.parseError),
        ([0xEF, 0xBB, 0xBF] + Array(#"{"jsonrpc":"2.0","id":1,"method":"status"}"#.utf8), .parseError),
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"status"} // c"#.utf8), .parseError),
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"st"#.utf8) + [0xFF] + Array(#"atus"}"#.utf8), .parseError),
        (Array("null".utf8), .invalidRequest),
    ] as [([UInt8], JSONRPCErrorCode)])
    func aLineThatIsNotStrictJSONIsNotExecuted(line: [UInt8], code: JSONRPCErrorCode) async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.send(bytes: line + [UInt8(ascii: "\n")])
                let answer = try await client.read(JSONRPCResponse<JSONRPCNoResult>.self)
                #expect(answer.id == .null)
                guard case .failure(let error) = answer.outcome else {
                    Issue.record("no error for \(line)")
                    return
                }
                #expect(error.code == code)
                let status = try await client.call(Self.status, expecting: StatusResult.self)
                #expect(status.id == .number(99))
            }
        }
    }

    @Test func anErrorForAnUnreadableRequestHasANullID() async throws {
        try await ServerHarness.with { harness in
            let answer = try await LineClient.with(path: harness.path) { client in
                try await client.call("{oops")
            }
            #expect(answer.id == .null)
        }
    }

    @Test func anErrorKeepsTheRequestID() async throws {
        try await ServerHarness.with { harness in
            let answer = try await LineClient.with(path: harness.path) { client in
                try await client.call(#"{"jsonrpc":"2.0","id":"x-1","method":"nope"}"#)
            }
            #expect(answer.id == .string("x-1"))
        }
    }

    @Test func blankLinesAndClientNotificationsGetNoAnswer() async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.sendLine("")
                try client.sendLine("   ")
                try client.sendLine(#"{"jsonrpc":"2.0","method":"status"}"#)
                try client.sendLine(#"{"jsonrpc":"2.0","method":"no.such.method"}"#)
                let first = try await client.call(Self.status, expecting: StatusResult.self)
                #expect(first.id == .number(99))
            }
        }
    }

    @Test func carriageReturnLineEndingsAreAccepted() async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                try client.send(bytes: Array((Self.status + "\r\n").utf8))
                let answer = try await client.read(JSONRPCResponse<StatusResult>.self)
                #expect(answer.id == .number(99))
            }
        }
    }

    @Test(arguments: [true, false])
    func anOversizedLineIsRefusedAndClosedWhileAnotherClientKeepsReceiving(withNewline: Bool) async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { watcher in
                let subscribed = try await watcher.call(
                    #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#, expecting: EventsSubscribeResult.self)
                #expect(try subscribed.outcome.get().nextSeq == 1)

                try await LineClient.with(path: harness.path) { abuser in
                    var line = Array(repeating: UInt8(ascii: "x"), count: NDJSON.maximumLineBytes + 4096)
                    if withNewline { line.append(UInt8(ascii: "\n")) }
                    try abuser.send(bytes: line)
                    let answer = try await abuser.read(JSONRPCResponse<JSONRPCNoResult>.self)
                    guard case .failure(let error) = answer.outcome else {
                        Issue.record("no error for an oversized line")
                        return
                    }
                    #expect(error.code == .lineTooLong)
                    #expect(error.reason == "line_too_long")
                    #expect(try await abuser.nextLine() == nil)  // closed by the server
                }

                let event = harness.publishRemoval()
                let notification = try await watcher.read(JSONRPCNotification<Event>.self)
                #expect(notification.method == "event")
                #expect(notification.params == Event(
                    seq: event.seq, time: notification.params.time, kind: .cardRemoved, reader: event.reader,
                    payload: .cardRemoved))
            }
        }
    }

    @Test func aLineOfExactlyTheLimitIsStillRead() async throws {
        try await ServerHarness.with { harness in
            try await LineClient.with(path: harness.path) { client in
                let prefix = #"{"jsonrpc":"2.0","id":7,"method":"status","pad":""#
                let suffix = #""}"#
                let padding = String(repeating: "p", count: NDJSON.maximumLineBytes - prefix.utf8.count - suffix.utf8.count)
                let answer = try await client.call(prefix + padding + suffix, expecting: StatusResult.self)
                #expect(answer.id == .number(7))
                #expect(try answer.outcome.get().version == "9.8.7-test")
            }
        }
    }
}
