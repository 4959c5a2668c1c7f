import ForwardSettings
import Foundation
import ISO7816
import Logging
import PassTapCore
import Synchronization
import Testing

@testable import NFCBackend

#if canImport(Glibc)
import Glibc
#endif

/// The libnfc backend in-process, against libnfc 1.8's own `pn532_uart` driver and the emulated
/// PN532 (a ``PN532Emulator`` in a folder of its own): which threads make the libnfc calls, and
/// how fast it stops. (Its unit tests are the `NFCBackendTests` target.)
@Suite(.serialized) struct LibNFCBackendTests {
    static let mastercard = "A0000000041010"

    /// A new emulator (with `emulatorArguments`), and the backend driving it (with a handler that
    /// selects Mastercard, then reads `pages` of a Type 2 tag), started; one APDU may take
    /// `apduTimeoutMilliseconds` (the daemon's 1.5 s unless a test needs another).
    static func start(
        emulatorArguments: [String] = [], pages: [UInt8] = [],
        apduTimeoutMilliseconds: Int32 = NFCPolling.standardAPDUTimeoutMilliseconds
    ) throws -> (PN532Emulator, RecordedEvents, SelectingTapHandler, NFCReaderBackend) {
        let emulator = try PN532Emulator(arguments: emulatorArguments)
        let events = RecordedEvents()
        let handler = SelectingTapHandler(aid: Self.mastercard, pages: pages)
        var configuration = Configuration()
        configuration.backends[.nfc] = Configuration.BackendSection()
        configuration.libnfc.devices = ["pn532_uart:" + emulator.link]
        let backend = NFCReaderBackend(
            configuration: configuration, tapHandler: handler, events: EventSink(events.append),
            apduTimeoutMilliseconds: apduTimeoutMilliseconds, logger: Logger(label: "test"))
        backend.start()
        return (emulator, events, handler, backend)
    }

    /// The backend a `backend.up` or `backend.down` names.
    static func backendName(_ entry: RecordedEvents.Entry) -> String? {
        if case .backend(let name, _) = entry.payload { return name }
        return nil
    }

    @Test func backendUpComesOnceLibnfcInitialisesBeforeAnyReader() async throws {
        let (emulator, events, _, backend) = try Self.start()
        defer { emulator.stop() }
        _ = try await events.next(.readerAdded)
        await backend.shutdown(deadline: .seconds(2))
        let kinds = events.entries.map(\.kind)
        let up = try #require(kinds.firstIndex(of: .backendUp), "\(kinds)")
        #expect(up < (kinds.firstIndex(of: .readerAdded) ?? up), "\(kinds)")
        #expect(events.all(.backendUp).map(Self.backendName) == ["nfc"])
        #expect(events.all(.backendUp).first?.reason == nil)
        #expect(events.all(.backendDown).isEmpty)
    }

    @Test func backendUpComesWithNoDeviceThere() async throws {
        let events = RecordedEvents()
        var configuration = Configuration()
        configuration.backends[.nfc] = Configuration.BackendSection()
        configuration.libnfc.devices = ["pn532_uart:/nonexistent/passtap-\(UUID().uuidString.prefix(8))/pn532"]
        let backend = NFCReaderBackend(
            configuration: configuration, tapHandler: SelectingTapHandler(aid: Self.mastercard), events: EventSink(events.append),
            logger: Logger(label: "test"))
        backend.start()
        let up = try await events.next(.backendUp)
        #expect(Self.backendName(up) == "nfc")
        await backend.shutdown(deadline: .seconds(2))
        #expect(events.all(.readerAdded).isEmpty)
    }

    /// libnfc 1.8's `nfc_init` fails only when it cannot allocate its context (a missing or
    /// unreadable /etc/nfc file is skipped), so the failure comes through the chokepoint's seam.
    @Test func whenLibnfcCannotBeInitialisedBackendDownSaysWhyAndItIsRetried() async throws {
        NFCCalls.failing(["nfc_init"])
        defer { NFCCalls.failing([]) }
        let (emulator, events, _, backend) = try Self.start()
        defer { emulator.stop() }
        let down = try await events.next(.backendDown)
        #expect(Self.backendName(down) == "nfc")
        #expect(down.reason == "libnfc nfc_init failed: libnfc could not allocate a context")
        #expect(events.all(.backendUp).isEmpty && events.all(.readerAdded).isEmpty)
        // Once libnfc initialises, the backend comes up and drives its device.
        NFCCalls.failing([])
        let up = try await events.next(.backendUp)
        #expect(Self.backendName(up) == "nfc")
        _ = try await events.next(.readerAdded)
        await backend.shutdown(deadline: .seconds(2))
        #expect(events.all(.backendDown).count == 1)
    }

    @Test func everyLibNFCCallRunsOnAThreadTheBackendOwns() async throws {
        let threads = Mutex<[String: Set<String>]>([:])
        NFCCalls.observe { function in
            let name = ThreadName.current
            threads.withLock { _ = $0["\(function)", default: []].insert(name.isEmpty ? "(unnamed)" : name) }
        }
        defer { NFCCalls.observe(nil) }
        let (emulator, events, handler, backend) = try Self.start()
        defer { emulator.stop() }
        let reader = try await events.next(.readerAdded)
        try emulator.command("tap")
        let tap = try await handler.next()
        #expect(tap.card.uid == HexBytes([0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]))
        #expect(try tap.answer.get().suffix(2) == [0x90, 0x00])
        // Requests from tasks, served by the reader's thread after the session let the card go.
        let select = try CommandAPDU.select(aid: AID(hex: Self.mastercard))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask { _ = try await backend.transmit(select, raw: false, on: reader.reader!) }
            }
            try await group.waitForAll()
        }
        try emulator.command("remove")
        _ = try await events.next(.cardRemoved)
        await backend.shutdown(deadline: .seconds(2))
        let seen = threads.withLock { $0 }
        #expect(seen["nfc_initiator_transceive_bytes"] != nil && seen["nfc_open"] != nil, "\(seen)")
        for (function, names) in seen {
            #expect(names.allSatisfy { $0.hasPrefix("nfc-") }, "\(function) ran on \(names.sorted())")
        }
    }

    @Test func withNoDevicesConfiguredTheDevicesLibnfcsScanFindsAreDriven() async throws {
        let emulator = try PN532Emulator(arguments: ["--tap"])
        defer { emulator.stop() }
        // What /etc/nfc/libnfc.conf's device.connstring would say; AUTO_SCAN off keeps the scan
        // away from the machine's USB devices.
        setenv("LIBNFC_DEVICE", "pn532_uart:" + emulator.link, 1)
        setenv("LIBNFC_AUTO_SCAN", "false", 1)
        defer {
            unsetenv("LIBNFC_DEVICE")
            unsetenv("LIBNFC_AUTO_SCAN")
        }
        let events = RecordedEvents()
        let handler = SelectingTapHandler(aid: Self.mastercard)
        var configuration = Configuration()
        configuration.backends[.nfc] = Configuration.BackendSection()
        let backend = NFCReaderBackend(configuration: configuration, tapHandler: handler, events: EventSink(events.append), logger: Logger(label: "test"))
        backend.start()
        let added = try await events.next(.readerAdded)
        #expect(added.reader?.rawValue == "nfc:pn532_uart:" + emulator.link)
        let tap = try await handler.next()
        #expect(try tap.answer.get().suffix(2) == [0x90, 0x00])
        await backend.shutdown(deadline: .seconds(2))
    }

    @Test func shutdownWithACardThatNeverAnswersAbortsItsExchange() async throws {
        let aborts = Mutex(0)
        NFCCalls.observe { function in
            if "\(function)" == "nfc_abort_command" { aborts.withLock { $0 += 1 } }
        }
        defer { NFCCalls.observe(nil) }
        // The APDU's own timeout out of reach (2 minutes): only the stop's abort can end the
        // exchange. With the daemon's 1.5 s, a loaded machine (the full suite on 2 cores) let the
        // timeout come first, and the test saw `timeout`, not `stopping`.
        let (emulator, events, handler, backend) = try Self.start(apduTimeoutMilliseconds: 120_000)
        defer { emulator.stop() }
        _ = try await events.next(.readerAdded)
        try emulator.command("stall")
        try emulator.command("tap")
        _ = try await events.next(.cardInserted)
        // The session's SELECT reached the chip, which holds it: libnfc waits for the answer.
        let deadline = ContinuousClock.now + .seconds(10)
        while try emulator.command("stats")["stalled"] as? Bool != true {
            guard ContinuousClock.now < deadline else { throw Rig.Failure(description: "the SELECT never reached the emulator") }
            try await Task.sleep(for: .milliseconds(10))
        }
        // The stop aborts it: the exchange ends as stopped, long before its timeout. The stop's
        // own deadline is generous too: it bounds the wait, and the abort is what ends it.
        await backend.shutdown(deadline: .seconds(30))
        let tap = try await handler.next()
        #expect(throws: CardTransportError(.readerUnavailable, "")) { try tap.answer.get() }
        if case .failure(let error) = tap.answer { #expect(error.message.contains("stopping"), "\(error)") }
        #expect(aborts.withLock { $0 } >= 1, "the stuck exchange was not aborted")
        let kinds = events.entries.map(\.kind)
        #expect(Array(kinds.suffix(2)) == [.cardRemoved, .readerRemoved], "\(kinds)")
    }
}
