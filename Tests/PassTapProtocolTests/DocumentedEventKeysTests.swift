import Foundation
import ISO7816
import NIOCore
import PassTapCore
import PassTapProtocol
import SmartTap
import Testing
import VAS
import Wallets

/// `docs/socket-api.md` is the contract: every member its event examples show is on the wire, and
/// nothing on the wire is missing from them. Each kind is encoded with every optional member
/// filled, through the real encoder, and its key paths compared with the documented examples'.
@Suite(.timeLimit(.minutes(1))) struct DocumentedEventKeysTests {
    static let document = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/socket-api.md")

    /// The documented key paths of each event kind: every `event` notification in the document's
    /// JSON blocks, and for `read.result` the `"vas":{...}` and `"smarttap":{...}` examples of its
    /// VAS and Smart Tap sections too.
    static func documented() throws -> [String: Set<String>] {
        let text = try String(contentsOf: document, encoding: .utf8)
        var paths: [String: Set<String>] = [:]
        var block: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```json") {
                block = []
                continue
            }
            guard var lines = block else { continue }
            if line.hasPrefix("```") {
                block = nil
                let joined = lines.joined(separator: "\n")
                if joined.hasPrefix("\"vas\":") || joined.hasPrefix("\"smarttap\":") {
                    let object = try #require(try JSONSerialization.jsonObject(with: Data("{\(joined)}".utf8)) as? [String: Any])
                    paths["read.result", default: []].formUnion(keyPaths(object))
                }
                continue
            }
            lines.append(line)
            block = lines
            guard line.hasPrefix(#"{"jsonrpc":"2.0","method":"event""#) else { continue }
            let message = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let params = try #require(message["params"] as? [String: Any])
            let kind = try #require(params["kind"] as? String)
            paths[kind, default: []].formUnion(keyPaths(params))
        }
        return paths
    }

    /// `a`, `a.b`, `a.list[].c`...: object keys only; a constructed TLV's `children[]` nesting is
    /// one level however deep the example goes.
    static func keyPaths(_ value: Any, prefix: String = "") -> Set<String> {
        var paths: Set<String> = []
        if let object = value as? [String: Any] {
            for (key, member) in object {
                let path = prefix.isEmpty ? key : prefix + "." + key
                paths.insert(path)
                paths.formUnion(keyPaths(member, prefix: path))
            }
        } else if let array = value as? [Any] {
            for element in array { paths.formUnion(keyPaths(element, prefix: prefix + "[]")) }
        }
        return Set(paths.map { path in
            var path = path
            while path.contains("children[].children") { path = path.replacingOccurrences(of: "children[].children", with: "children") }
            return path
        })
    }

    static let reader = ReaderID.pcsc("Virtual PCD 00 00")

    /// One event of each kind, every optional member set.
    static func fullEvents() throws -> [Event] {
        let card = CardInfo(atr: "3B8680014B4F4E41141109", uid: "04A23C1A7F2D80", atqa: "0044", sak: "20", ats: "0B78778102")
        let info = ReaderInfo(id: reader, name: reader.name, backend: "pcsc", state: .unavailable, reason: "held")
        let fci = FCIRecord(
            hex: "6F09", tlv: [TLVRecord(tag: "6F", value: nil, children: [TLVRecord(tag: "84", value: "A0000000041010", children: nil)])],
            redacted: ["5A"])
        let aid = AIDSessionResult(
            selected: "A0000000041010", fci: fci, attempts: [.init(aid: "A0000000041010", sw: "9000")],
            ppse: PaymentDirectory(offered: true, applications: [.init(aid: "A0000000041010", label: "MASTERCARD", priority: 1)]))
        var entry = VASEntry(
            passTypeID: "pass.com.example.coffee", status: .success, sw: "9000", keyID: VASKeyID(bytes: [1, 2, 3, 4]), problem: "none")
        entry.publish(VASPayload(timestampRaw: 817_038_360, message: Array("member 0042".utf8)), variant: .a)
        let capabilities = try #require(VASMobileCapabilities(bytes: [0, 0, 0, 0x3E]))
        let vas = VASSessionResult(
            offered: true, wallet: "ApplePay", version: "0100", capabilities: .init(capabilities), mode: .vasOrPayment, problem: "none",
            entries: [entry])
        let smartTap = SmartTapSessionResult(
            offered: true, version: "0001", status: .refused, sw: "9406", code: 0x06, problem: "none", customerID: "4B3C2D1E",
            tapID: "0F1E2D3C4B5A6978", objects: [SmartTapPublishedObject(type: "loyalty", issuerID: "3388", objectID: "3388.m", value: "member 0042")])
        // One URI record, https://example.com.
        let ndef = NDEFReadResult(tagType: .type2, message: [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8))
        let result = ReadResult(
            card: card, target: .isoDep,
            session: SessionOutcome(aid: aid, vas: vas, ndef: ndef, smartTap: smartTap, error: CardTransportError(.cardRemoved, "gone")),
            duration: .microseconds(38_412))
        let payloads: [(EventKind, EventPayload)] = [
            (.backendDown, .backend(name: "pcsc", reason: "pcscd is not running")),
            (.backendUp, .backend(name: "pcsc", reason: nil)),
            (.readerAdded, .reader(info)), (.readerChanged, .reader(info)), (.readerRemoved, .reader(info)),
            (.cardInserted, .card(card)), (.cardRemoved, .cardRemoved), (.readResult, .readResult(result)),
            (.configReloaded, .configReloaded(ConfigReloaded(file: "/etc/passtap/passtapd.toml", changed: ["log.level"], restartRequired: ["socket.path"]))),
            (.configRejected, .configRejected(ConfigRejected(file: "/etc/passtap/passtapd.toml", line: 3, key: "log.level", problem: "expected one of trace, ..."))),
            (.forwardDropped, .forwardDropped(ForwardDropped(reason: .requested, sink: "old-fleet", count: 2, firstID: "i-1:5", lastID: "i-1:6"))),
        ]
        return payloads.enumerated().map { index, entry in
            Event(seq: UInt64(index + 1), time: Date(timeIntervalSince1970: 1_800_000_000), kind: entry.0, reader: reader, payload: entry.1)
        }
    }

    @Test func everyEventKindIsDocumented() throws {
        let documented = try Self.documented()
        #expect(Set(documented.keys) == Set(EventKind.allCases.map(\.rawValue)))
    }

    @Test(arguments: EventKind.allCases)
    func everyDocumentedKeyIsOnTheWireAndNothingElse(kind: EventKind) throws {
        let documented = try #require(try Self.documented()[kind.rawValue], "docs/socket-api.md has no \(kind.rawValue) example")
        let event = try #require(try Self.fullEvents().first { $0.kind == kind })
        let line = try NDJSON.encodeLine(JSONRPCNotification(method: .event, params: event))
        let message = try #require(try JSONSerialization.jsonObject(with: Data(line.readableBytesView.dropLast())) as? [String: Any])
        let onTheWire = Self.keyPaths(try #require(message["params"]))
        #expect(documented.subtracting(onTheWire).isEmpty, "documented but not sent: \(documented.subtracting(onTheWire).sorted())")
        #expect(onTheWire.subtracting(documented).isEmpty, "sent but not documented: \(onTheWire.subtracting(documented).sorted())")
    }
}
