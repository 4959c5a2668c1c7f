import Foundation
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension PCSCScenarioTests.HostileScenarioTests {
    /// One kind of garbage line: how to make the `n`th, and the error code it must get.
    struct Garbage {
        let name: String
        let code: Int
        let line: (Int) -> [UInt8]
    }

    /// 10 000 garbage lines, ten kinds in turn; each must get its error, in order, on a
    /// connection that stays open.
    static var garbage: [Garbage] {
        let nonObjects = ["42", "null", #""status""#, "[1,2,3]", "true", #"[{"jsonrpc":"2.0","id":1,"method":"status"}]"#]
        return [
            Garbage(name: "trailing comma", code: -32700) { Array(#"{"jsonrpc":"2.0","id":\#($0),"method":"status",}"#.utf8) },
            Garbage(name: "invalid UTF-8", code: -32700) { [0xFF, 0xFE, 0xC0, 0xAF] + Array("garbage \($0)".utf8) },
            Garbage(name: "not an object", code: -32600) { Array(nonObjects[$0 / 10 % nonObjects.count].utf8) },
            Garbage(name: "jsonrpc 1.0", code: -32600) { Array(#"{"jsonrpc":"1.0","id":\#($0),"method":"status"}"#.utf8) },
            // The rpc fuzz target's finding: parsers disagree on which of two ids wins.
            Garbage(name: "id given twice", code: -32700) { Array(#"{"jsonrpc":"2.0","id":\#($0),"method":"status","id":"x"}"#.utf8) },
            Garbage(name: "unknown method", code: -32601) { Array(#"{"jsonrpc":"2.0","id":\#($0),"method":"nope.\#($0)"}"#.utf8) },
            Garbage(name: "arrays nested 1000 deep", code: -32700) {
                Array(#"{"jsonrpc":"2.0","id":\#($0),"method":"status","params":"#.utf8)
                    + Array(repeating: UInt8(ascii: "["), count: 1000) + Array(repeating: UInt8(ascii: "]"), count: 1000) + [UInt8(ascii: "}")]
            },
            Garbage(name: "objects nested 1000 deep", code: -32700) { _ in
                Array(String(repeating: #"{"a":"#, count: 1000).utf8) + [UInt8(ascii: "1")] + Array(repeating: UInt8(ascii: "}"), count: 1000)
            },
            Garbage(name: "huge number (timeout_ms 1e400)", code: -32602) {
                Array(#"{"jsonrpc":"2.0","id":\#($0),"method":"vas.read","params":{"reader":"pcsc:Virtual PCD 00 00","timeout_ms":1e400}}"#.utf8)
            },
            Garbage(name: "huge number (since 10^30)", code: -32602) {
                Array(#"{"jsonrpc":"2.0","id":\#($0),"method":"events.subscribe","params":{"since":1000000000000000000000000000000}}"#.utf8)
            },
        ]
    }

    @Test func hostilePeersLeaveTheSubscriberWholeAndTheTillServed() throws {
        let hostile = try Self.rig()
        defer { hostile.stop() }

        // 10 000 garbage lines on one connection, pipelined 500 at a time.
        try hostile.report.begin()
        let kinds = Self.garbage
        let peer = try LineClient(path: hostile.rig.socketPath)
        var codes: [String: [Int: Int]] = [:]
        for batch in stride(from: 0, to: 10_000, by: 500) {
            let indices = batch..<(batch + 500)
            try peer.send(bytes: indices.flatMap { kinds[$0 % kinds.count].line($0) + [0x0A] })
            for index in indices {
                let answer = try peer.readJSON(what: "the answer to garbage line \(index)") { _ in true }
                let code = (answer["error"] as? [String: Any])?["code"] as? Int ?? 0
                codes[kinds[index % kinds.count].name, default: [:]][code, default: 0] += 1
            }
        }
        for kind in kinds {
            #expect(codes[kind.name] == [kind.code: 1000], "\(kind.name): \(codes[kind.name] ?? [:])")
        }
        try peer.sendLine(#"{"jsonrpc":"2.0","id":"after","method":"status"}"#)
        let after = try peer.readJSON(what: "status after the garbage") { _ in true }
        #expect(after["id"] as? String == "after" && after["result"] != nil, "\(after)")
        let served = try hostile.tillIsServed(after: "garbage")
        hostile.checkSubscriber(after: "garbage")
        let tally = kinds.map { "\($0.name) \(codes[$0.name]?.keys.map(String.init).joined(separator: ",") ?? "-")" }.joined(separator: "; ")
        try hostile.report.end(
            "10 000 garbage lines on one connection (1 000 each: \(kinds.map(\.name).joined(separator: ", ")))",
            daemon: "each line answered in order with its error (\(tally)); the connection stays open and then answers `status`",
            subscriber: "nothing (no event); none lost; \(served)")

        // Over-long lines: 64 KiB exactly is a line; one byte more, or 4 MiB without a newline, is not.
        try hostile.report.begin()
        let longest = try LineClient(path: hostile.rig.socketPath)
        let prefix = #"{"jsonrpc":"2.0","id":1,"method":"status","params":{"pad":""#
        let suffix = #""}}"#
        let padding = String(repeating: "a", count: 65_536 - prefix.utf8.count - suffix.utf8.count)
        try longest.sendLine(prefix + padding + suffix)
        let atLimit = try longest.readJSON(what: "the answer to a 65 536-byte line") { _ in true }
        #expect((atLimit["error"] as? [String: Any])?["code"] as? Int == -32602, "\(atLimit)")
        try longest.sendLine(#"{"jsonrpc":"2.0","id":2,"method":"status"}"#)
        #expect(try longest.readJSON(what: "status after it") { _ in true }["result"] != nil)
        var refusals: [String] = []
        for (name, bytes) in [("65 537 bytes", 65_537), ("4 MiB, no newline", 4 << 20)] {
            let long = try LineClient(path: hostile.rig.socketPath)
            // The daemon may close before all is sent: what it answered is still there to read.
            try? long.send(bytes: Array(repeating: UInt8(ascii: "x"), count: bytes) + (bytes < 1 << 20 ? [0x0A] : []))
            let refusal = try long.readJSON(what: "the answer to a line of \(name)") { _ in true }
            #expect((refusal["error"] as? [String: Any])?["code"] as? Int == -32007, "\(name): \(refusal)")
            #expect(long.isClosedByPeer(), "\(name): the connection stays open")
            refusals.append(name)
        }
        let servedAfterLong = try hostile.tillIsServed(after: "over-long lines")
        hostile.checkSubscriber(after: "over-long lines")
        try hostile.report.end(
            "lines of 65 536 bytes (the limit), 65 537 bytes, and 4 MiB without a newline, each on its own connection",
            daemon: "65 536: parsed and answered (-32602, unknown param), connection kept; \(refusals.joined(separator: " and ")): -32007 `line_too_long`, connection closed",
            subscriber: "nothing (no event); none lost; \(servedAfterLong)")

        // 1 000 connect / subscribe / disconnect cycles.
        try hostile.report.begin()
        for cycle in 0..<1000 {
            let client = try LineClient(path: hostile.rig.socketPath)
            try client.sendLine(#"{"jsonrpc":"2.0","id":\#(cycle),"method":"events.subscribe","params":{"kinds":["read.result"]}}"#)
            let answer = try client.readJSON(what: "subscribe answer \(cycle)") { $0["id"] as? Int == cycle }
            guard answer["result"] != nil else {
                Issue.record("cycle \(cycle) was not subscribed: \(answer)")
                break
            }
        }
        let servedAfterCycles = try hostile.tillIsServed(after: "1 000 cycles")
        hostile.checkSubscriber(after: "1 000 cycles")
        try hostile.report.end(
            "1 000 connect / subscribe / disconnect cycles, one after another",
            daemon: "every one subscribed (answer with `next_seq`), every close cleaned up",
            subscriber: "nothing (no event); none lost; \(servedAfterCycles)")
        #expect(hostile.ledger.problems.isEmpty, "\(hostile.ledger.problems)")
    }
}
