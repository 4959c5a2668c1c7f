import Foundation
import ISO7816
import PCSCBackend
import PassTapCore
import Testing

// The Type 2 tag memory the PC/SC backend hands a tap, read through real pcscd, vpcd and the
// virtual card's NTAG215 (`scripts/rig/tag_memory.py`). In `PCSCBackendTests`, so serialised
// with every other test that starts pcscd.
extension PCSCScenarioTests.PCSCBackendTests {
    /// The pages the fixture's handler reads: the capability container's, the first data page,
    /// the last page (READ rolls over to page 0) and one past the NTAG215's 135.
    static let pagesRead: [UInt8] = [3, 4, 134, 135]
    /// `ntag215-ndef`'s pages 3, 4 and 134 as its READ answers them (16 bytes each): CC
    /// E1 10 3E 00, then the NDEF TLV (03 31) of a URI and a Text record.
    static let ntagPage3 = "E1103E00033191011455047061737374"
    static let ntagPage4 = "03319101145504706173737461702E65"
    static let ntagPage134 = "0000000004D1E2BFF3A4B58062480000"

    @Test func anNTAGGivesTheTapItsMemoryReadWithFFB0SixteenBytesAPage() async throws {
        try await PCSCBackendFixture.with(cardProfile: #"{"base": "ntag215-ndef"}"#) { fixture in
            let backend = fixture.startBackend()
            _ = try await fixture.events.next(.readerAdded)
            try fixture.card("tap")
            let tap = try await fixture.handler.next()
            #expect(tap.card.atr == "3B8F8001804F0CA0000003060300030000000068")
            let pages = try #require(tap.pages, "the NTAG's tap had no memory")
            #expect(try pages[0].get().hexString == Self.ntagPage3)
            #expect(try pages[1].get().hexString == Self.ntagPage4)
            #expect(try pages[2].get().hexString == Self.ntagPage134)
            // Past the last page the tag NAKs; the reader answers 6300.
            #expect(throws: CardTransportError(.transportFailed, "")) { try pages[3].get() }
            if case .failure(let error) = pages[3] { #expect(error.message.contains("6300"), "\(error)") }
            await backend.shutdown()
        }
    }

    @Test func aReaderThatAnswersFFB0WithOnePageGivesFourBytesAndOneThatRefusesSixteenIsAskedAgain() async throws {
        try await PCSCBackendFixture.with(cardProfile: #"{"base": "ntag215-ndef", "page_read_bytes": 4}"#) { fixture in
            let backend = fixture.startBackend()
            _ = try await fixture.events.next(.readerAdded)
            try fixture.card("tap")
            let pages = try #require(try await fixture.handler.next().pages, "the NTAG's tap had no memory")
            #expect(try pages[0].get().hexString == String(Self.ntagPage3.prefix(8)))
            #expect(try pages[1].get().hexString == String(Self.ntagPage4.prefix(8)))
            #expect(try pages[2].get().hexString == String(Self.ntagPage134.prefix(8)))

            // A reader that refuses 16 bytes when the four pages run past the NTAG215's 135 (from
            // 134 on) with a length status word: the page is asked for again with Le 04, and a page
            // past the last is still refused (6300 after the retry). Same pcscd, next tap.
            try fixture.card("remove")
            let refusing = fixture.directory.appendingPathComponent("refusing.json")
            try #"{"base": "ntag215-ndef", "long_read_refusal": "6700"}"#.write(to: refusing, atomically: true, encoding: .utf8)
            try fixture.card("profile \(refusing.path)")
            try fixture.card("tap")
            let refused = try #require(try await fixture.handler.next().pages, "the NTAG's tap had no memory")
            #expect(try refused[0].get().hexString == Self.ntagPage3)
            #expect(try refused[1].get().hexString == Self.ntagPage4)
            #expect(try refused[2].get().hexString == String(Self.ntagPage134.prefix(8)))
            #expect(throws: CardTransportError(.transportFailed, "")) { try refused[3].get() }
            if case .failure(let error) = refused[3] { #expect(error.message.contains("also for 4 bytes) (SW 6300)"), "\(error)") }
            await backend.shutdown()
        }
    }

    @Test(arguments: [
        // MIFARE Classic 1K: its blocks need keys; never read.
        #"{"base": "memory-classic"}"#,
        // An ISO-DEP card.
        #"{}"#,
    ])
    func aCardThatIsNoType2TagGivesTheTapNoMemory(_ profile: String) async throws {
        try await PCSCBackendFixture.with(cardProfile: profile) { fixture in
            let backend = fixture.startBackend()
            _ = try await fixture.events.next(.readerAdded)
            try fixture.card("tap")
            let tap = try await fixture.handler.next()
            #expect(tap.pages == nil, "\(tap.card)")
            await backend.shutdown()
        }
    }

    @Test func aTagPulledDuringAPageReadGivesCardRemoved() async throws {
        try await PCSCBackendFixture.with(cardProfile: #"{"base": "ntag215-ndef"}"#) { fixture in
            let backend = fixture.startBackend()
            _ = try await fixture.events.next(.readerAdded)
            // APDU 1 is the UID read, 2 the handler's SELECT, 3 the first page read.
            try fixture.card("pull-after 3")
            try fixture.card("tap")
            let pages = try #require(try await fixture.handler.next().pages, "the NTAG's tap had no memory")
            #expect(throws: CardTransportError(.cardRemoved, "")) { try pages[0].get() }
            await backend.shutdown()
        }
    }
}
