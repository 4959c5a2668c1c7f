import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What every NDEF scenario checks: the rig's tags (`scripts/rig/tag_memory.py`) and what their
/// `read.result`'s `ndef` must say.
enum NDEFTags {
    /// The URI and Text records `ntag215-ndef`, `ntag215-lock-control` and `type4-ndef` hold.
    static let uri = "https://passtap.example/tag"
    static let text = "Hello from PassTap"
    /// Their message, as ndeflib encodes it too (`test_tag_memory.py`).
    static let messageHex =
        "9101145504706173737461702E6578616D706C652F7461675101155402656E48656C6C6F2066726F6D2050617373546170"
    /// The tags that must give a `problem` and leave the daemon reading.
    static let hostile = ["ntag215-beyond-cc", "ntag215-tlv-loop", "type4-many-records"]

    /// A config with an application list the tags do not answer (so a Type 4 tag is tried).
    static let session = "[session]\naids = [\"A0000000041010\"]\n"

    /// The `ndef` member of a `read.result`.
    static func ndef(_ result: [String: Any]) throws -> [String: Any] {
        try #require(result["ndef"] as? [String: Any], "read.result has no ndef: \(result)")
    }

    /// Checks that `result` carries the URI and the Text record, whole, for a `read` peer.
    static func expectTheTwoRecords(_ result: [String: Any], tagType: String) throws {
        let ndef = try ndef(result)
        #expect(ndef["tag_type"] as? String == tagType, "\(ndef)")
        #expect(ndef["problem"] is NSNull, "\(ndef)")
        #expect(ndef["record_count"] as? Int == 2, "\(ndef)")
        #expect(ndef["message_hex"] as? String == messageHex, "\(ndef)")
        #expect(ndef["truncated"] as? Bool == false && ndef["withheld"] is NSNull, "\(ndef)")
        let records = try #require(ndef["records"] as? [[String: Any]], "\(ndef)")
        try #require(records.count == 2, "\(records)")
        #expect(records[0]["tnf"] as? String == "well_known" && records[0]["type"] as? String == "U", "\(records[0])")
        #expect(records[0]["uri"] as? String == uri, "\(records[0])")
        #expect(records[1]["tnf"] as? String == "well_known" && records[1]["type"] as? String == "T", "\(records[1])")
        #expect(records[1]["text"] as? String == text && records[1]["language"] as? String == "en", "\(records[1])")
        #expect(result["error"] is NSNull, "\(result)")
    }

    /// Checks that a hostile tag's `result` has a `problem` and no records.
    static func expectAProblem(_ result: [String: Any], _ profile: String) throws {
        let ndef = try ndef(result)
        let problem = try #require(ndef["problem"] as? String, "\(profile): no problem in \(ndef)")
        #expect(!problem.isEmpty)
        #expect(ndef["records"] is NSNull, "\(profile): \(ndef)")
    }
}

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// NDEF tags through the real stack: pcscd, vpcd and the virtual card's NTAG215s and Type 4
    /// tags, and the built passtapd, seen by socket clients.
    @Suite(.serialized) struct NDEFScenarioTests {
        /// A rig whose card is the tag `profile` (with `cardArguments` added), and its ledger.
        static func rig(_ profile: String, cardArguments: [String] = [], config: String = NDEFTags.session) throws -> (Rig, EventLedger) {
            let rig = try Rig(config: config, cardArguments: ["--profile", profile] + cardArguments)
            do {
                let ledger = try EventLedger(rig: rig)
                try ledger.next("reader.added")
                return (rig, ledger)
            } catch {
                rig.stop()
                throw error
            }
        }

        /// The tag enters the field, stays until its `read.result`, and leaves.
        static func tap(_ rig: Rig, _ ledger: EventLedger) throws -> [String: Any] {
            try rig.cardCommand("tap")
            let result = try ledger.next("read.result", timeout: 30)
            try rig.cardCommand("remove")
            try ledger.next("card.removed")
            return result
        }

        @Test(arguments: [16, 4])
        func anNTAGsURIAndTextRecordsArriveInReadResult(pageReadBytes: Int) throws {
            let (rig, ledger) = try Self.rig("ntag215-ndef", cardArguments: ["--page-read-bytes", String(pageReadBytes)])
            defer { rig.stop() }
            let result = try Self.tap(rig, ledger)
            #expect(result["target"] as? String == "memory")
            try NDEFTags.expectTheTwoRecords(result, tagType: "type2")
        }

        @Test func aLockControlTLVBeforeTheNDEFTLVIsSkipped() throws {
            let (rig, ledger) = try Self.rig("ntag215-lock-control")
            defer { rig.stop() }
            try NDEFTags.expectTheTwoRecords(try Self.tap(rig, ledger), tagType: "type2")
        }

        @Test func anEmptyNTAGGivesAProblem() throws {
            let (rig, ledger) = try Self.rig("ntag215-empty")
            defer { rig.stop() }
            let ndef = try NDEFTags.ndef(try Self.tap(rig, ledger))
            #expect(ndef["tag_type"] as? String == "type2")
            #expect(ndef["problem"] is String, "\(ndef)")
            #expect(ndef["records"] is NSNull, "\(ndef)")
        }

        @Test func aType4TagIsReadInChunksNoLongerThanItsMLe() throws {
            let (rig, ledger) = try Self.rig("type4-ndef")
            defer { rig.stop() }
            let result = try Self.tap(rig, ledger)
            #expect(result["target"] as? String == "iso_dep")
            try NDEFTags.expectTheTwoRecords(result, tagType: "type4")
            // The card refuses (6700) a READ BINARY over its MLe, 246: none was sent.
            #expect(try #require(rig.cardCommand("stats")["largest_read"] as? Int) <= 0xF6)
        }

        @Test(arguments: NDEFTags.hostile)
        func aHostileTagGivesAProblemAndTheNextTapIsRead(_ profile: String) throws {
            let (rig, ledger) = try Self.rig(profile)
            defer { rig.stop() }
            try NDEFTags.expectAProblem(try Self.tap(rig, ledger), profile)
            try rig.cardCommand("profile ntag215-ndef")
            try NDEFTags.expectTheTwoRecords(try Self.tap(rig, ledger), tagType: "type2")
        }

        @Test(.enabled(if: getuid() == 0, "needs root to run a client as another user"))
        func anObservePeerSeesOnlyTheTagTypeAndTheRecordCount() throws {
            // Continues the rig's [socket] table.
            let config = "group = \"nogroup\"\n" + NDEFTags.session + "[access]\nread = [\"uid:0\"]\n"
            let (rig, ledger) = try Self.rig("ntag215-ndef", config: config)
            defer { rig.stop() }
            chmod(rig.directory.path, 0o755)
            typealias Access = AccessScenarioTests
            let (watcher, output) = try Access.nobody(
                rig, lines: [#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"kinds":["read.result"]}}"#], name: "watcher")
            try rig.waitFor("nobody's subscription") { Access.text(output).contains(#""next_seq""#) }

            try NDEFTags.expectTheTwoRecords(try Self.tap(rig, ledger), tagType: "type2")

            #expect(watcher.wait(seconds: 20).inTime)
            let seen = try Access.messages(output)
            let event = try #require(seen.last?["params"] as? [String: Any], "\(seen)")
            let ndef = try NDEFTags.ndef(event)
            #expect(ndef["tag_type"] as? String == "type2")
            #expect(ndef["record_count"] as? Int == 2)
            #expect(ndef["records"] is NSNull && ndef["message_hex"] is NSNull, "\(ndef)")
            #expect(ndef["withheld"] as? String == "access")
            let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
            #expect(!text.contains("passtap.example") && !text.contains("7061737374"), "\(text)")
        }
    }
}

/// NDEF tags through libnfc 1.8's real `pn532_uart` driver and the emulated PN532's NTAG215 and
/// Type 4 tag, and the built passtapd. No pcscd.
@Suite(.serialized) struct LibNFCNDEFScenarioTests {
    static func rig(_ profile: String) throws -> (Rig, EventLedger) {
        let rig = try Rig(config: LibNFCScenarioTests.config(NDEFTags.session), pcscd: false, emulatorArguments: ["--profile", profile])
        do {
            let ledger = try EventLedger(rig: rig)
            try rig.waitForReader(state: "empty")
            return (rig, ledger)
        } catch {
            rig.stop()
            throw error
        }
    }

    /// The tag enters the field until its `read.result`, then leaves (`card.removed` comes `rearm_ms` later).
    static func tap(_ rig: Rig, _ ledger: EventLedger) throws -> [String: Any] {
        try rig.emulatorCommand("tap")
        let result = try ledger.next("read.result", timeout: 30)
        try rig.emulatorCommand("remove")
        try ledger.next("card.removed")
        return result
    }

    @Test func anNTAGsRecordsArriveThroughREADCommands() throws {
        let (rig, ledger) = try Self.rig("ntag215-ndef")
        defer { rig.stop() }
        let result = try Self.tap(rig, ledger)
        #expect(result["atqa"] as? String == "0044" && result["sak"] as? String == "00")
        try NDEFTags.expectTheTwoRecords(result, tagType: "type2")
        // READ (30 page) in InDataExchange, from the capability container's page on.
        let reads = try LibNFCScenarioTests.hostFrames(rig).filter { $0.hasPrefix("D4400130") }
        #expect(reads.first == "D440013003", "\(reads)")
        // An Ultralight whose CC claims 496 bytes: READ of its last page rolls over to page 0,
        // which is reported as past the tag's memory, not read as the message's bytes.
        // The last tap: its read.result is all it needs (no wait for the removal's rearm_ms).
        try rig.emulatorCommand("profile ultralight-cc-too-large")
        try rig.emulatorCommand("tap")
        let overClaiming = try NDEFTags.ndef(try ledger.next("read.result", timeout: 30))
        let problem = try #require(overClaiming["problem"] as? String, "\(overClaiming)")
        #expect(problem.hasPrefix("page 16 reads back as page 0") && problem.contains("past the tag's memory"), "\(problem)")
        #expect(overClaiming["message_hex"] is NSNull && overClaiming["records"] is NSNull, "\(overClaiming)")
    }

    @Test func aType4TagIsRead() throws {
        let (rig, ledger) = try Self.rig("type4-ndef")
        defer { rig.stop() }
        try NDEFTags.expectTheTwoRecords(try Self.tap(rig, ledger), tagType: "type4")
    }

    @Test(arguments: NDEFTags.hostile)
    func aHostileTagGivesAProblemAndTheNextTapIsRead(_ profile: String) throws {
        let (rig, ledger) = try Self.rig(profile)
        defer { rig.stop() }
        try NDEFTags.expectAProblem(try Self.tap(rig, ledger), profile)
        try rig.emulatorCommand("profile ntag215-ndef")
        try NDEFTags.expectTheTwoRecords(try Self.tap(rig, ledger), tagType: "type2")
    }
}
