import Foundation
import PassTapCore
import PassTapProtocol
import Testing

/// `docs/socket-api.md`'s `status` answer shows every member the daemon sends, and no other.
@Suite(.timeLimit(.minutes(1))) struct DocumentedStatusKeysTests {
    /// The documented `status` result: the first JSON block after "### `status`" that answers.
    static func documentedResult() throws -> [String: Any] {
        let text = try String(contentsOf: DocumentedEventKeysTests.document, encoding: .utf8)
        let section = try #require(text.range(of: "### `status`")).upperBound
        var rest = text[section...]
        while let open = rest.range(of: "```json\n") {
            let close = try #require(rest.range(of: "\n```", range: open.upperBound..<rest.endIndex))
            let block = String(rest[open.upperBound..<close.lowerBound])
            if block.contains("\"result\"") {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(block.utf8)) as? [String: Any])
                return try #require(object["result"] as? [String: Any])
            }
            rest = rest[close.upperBound...]
        }
        throw DocumentError()
    }

    struct DocumentError: Error {}

    static func keys(_ value: Any?, prefix: String = "") -> Set<String> {
        if let object = value as? [String: Any] {
            return object.reduce(into: Set<String>()) { paths, member in
                let path = prefix.isEmpty ? member.key : "\(prefix).\(member.key)"
                paths.insert(path)
                paths.formUnion(keys(member.value, prefix: path))
            }
        }
        if let array = value as? [Any], let first = array.first { return keys(first, prefix: prefix + "[]") }
        return []
    }

    @Test func everyMemberOfStatusIsDocumented() throws {
        let reader = ReaderID.pcsc("R 00 00")
        let status = StatusResult(
            version: "0.1.0", protocolVersion: 1, instance: "i", uptimeSeconds: 1,
            readers: [ReaderInfo(id: reader, name: "R 00 00", backend: "pcsc", state: .empty, taps: TapCounts())],
            backends: [StatusBackend(name: "pcsc", up: true, reason: nil)],
            lastTaps: [StatusLastTap(reader: reader, time: "2026-11-24T01:50:00.123Z", outcome: .pass)],
            health: StatusHealth(state: .healthy, problems: ["p"], lastCheckMilliseconds: 1, clockSynchronised: true), webClients: 1)
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(status))
        #expect(Self.keys(encoded) == Self.keys(try Self.documentedResult()))
    }
}
