import ISO7816
import PassTapCore
import Synchronization
import Testing

@testable import NFCBackend

// The Type 2 tag memory the libnfc backend hands a tap: READ (30 page) through libnfc's real
// pn532_uart driver and the emulated PN532's NTAG215 (`scripts/rig/tag_memory.py`).
extension LibNFCBackendTests {
    /// The capability container's page, the first data page, the last page (READ rolls over to
    /// page 0) and one past the NTAG215's 135.
    static let pagesRead: [UInt8] = [3, 4, 134, 135]

    @Test func anNTAGGivesTheTapItsMemoryReadWithREADSixteenBytesAPage() async throws {
        let (emulator, events, handler, backend) = try Self.start(emulatorArguments: ["--profile", "ntag215-ndef"], pages: Self.pagesRead)
        defer { emulator.stop() }
        _ = try await events.next(.readerAdded)
        try emulator.command("tap")
        let tap = try await handler.next()
        #expect(tap.card.atqa == "0044" && tap.card.sak == "00")
        let pages = try #require(tap.pages, "the NTAG's tap had no memory")
        #expect(try pages[0].get().hexString == PCSCScenarioTests.PCSCBackendTests.ntagPage3)
        #expect(try pages[1].get().hexString == PCSCScenarioTests.PCSCBackendTests.ntagPage4)
        #expect(try pages[2].get().hexString == PCSCScenarioTests.PCSCBackendTests.ntagPage134)
        // Past the last page the tag NAKs (the PN532's status 14).
        #expect(throws: CardTransportError.self) { try pages[3].get() }
        await backend.shutdown(deadline: .seconds(2))
        let frames = try emulator.command("frames")["frames"] as? [[String: Any]] ?? []
        let reads = frames.compactMap { $0["hex"] as? String }.filter { $0.hasPrefix("D4400130") }
        #expect(reads == ["D440013003", "D440013004", "D440013086", "D440013087"], "\(reads)")
    }

    @Test func aMIFAREClassicGivesTheTapNoMemory() async throws {
        let (emulator, events, handler, backend) = try Self.start(emulatorArguments: ["--profile", "memory-classic"], pages: Self.pagesRead)
        defer { emulator.stop() }
        _ = try await events.next(.readerAdded)
        try emulator.command("tap")
        let tap = try await handler.next()
        #expect(tap.card.sak == "08")
        #expect(tap.pages == nil)
        await backend.shutdown(deadline: .seconds(2))
        let frames = try emulator.command("frames")["frames"] as? [[String: Any]] ?? []
        #expect(!frames.contains { ($0["hex"] as? String)?.hasPrefix("D4400130") == true })
    }

    @Test func shutdownDuringAPageReadTheTagNeverAnswersAbortsIt() async throws {
        let aborts = Mutex(0)
        NFCCalls.observe { function in
            if "\(function)" == "nfc_abort_command" { aborts.withLock { $0 += 1 } }
        }
        defer { NFCCalls.observe(nil) }
        let (emulator, events, handler, backend) = try Self.start(emulatorArguments: ["--profile", "ntag215-ndef"], pages: Self.pagesRead)
        defer { emulator.stop() }
        _ = try await events.next(.readerAdded)
        try emulator.command("stall")
        try emulator.command("tap")
        _ = try await events.next(.cardInserted)
        let deadline = ContinuousClock.now + .seconds(10)
        while try emulator.command("stats")["stalled"] as? Bool != true {
            guard ContinuousClock.now < deadline else { throw Rig.Failure(description: "the READ never reached the emulator") }
            try await Task.sleep(for: .milliseconds(10))
        }
        await backend.shutdown(deadline: .seconds(5))
        let pages = try #require(try await handler.next().pages, "the NTAG's tap had no memory")
        #expect(throws: CardTransportError(.readerUnavailable, "")) { try pages[0].get() }
        // Stopping: the later pages are not sent at all.
        for page in pages.dropFirst() {
            if case .failure(let error) = page { #expect(error.message.contains("stopping"), "\(error)") } else { Issue.record("read after the stop: \(page)") }
        }
        #expect(aborts.withLock { $0 } >= 1, "the stuck READ was not aborted")
    }
}
