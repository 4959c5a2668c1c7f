import ForwardSettings
import Foundation
import ISO7816
import Logging
import PassTapTestNetwork
import PCSCBackend
import PassTapCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Nested in `PCSCScenarioTests`, whose `.serialized` reaches nested suites: the daemon
// scenarios and these backend tests then never run at the same time in one test process (each
// starts the machine's only pcscd). The `flock` below also keeps other test processes out.
extension PCSCScenarioTests {
    /// The PC/SC backend, in process, against a real pcscd with the vsmartcard-vpcd virtual readers
    /// and our virtual card: what it publishes, what it hands the tap handler, and how it lives
    /// through pcscd going away. One pcscd per machine: these run one at a time, under the
    /// machine-wide pcscd lock.
    @Suite(.serialized) struct PCSCBackendTests {
        static let firstReader = "Virtual PCD 00 00"
        static let secondReader = "Virtual PCD 00 01"
        /// The built-in virtual card's ATR, UID and Mastercard-like application (`virtual_card.py`).
        static let cardATR: HexBytes = "3B8680014B4F4E41141109"
        static let cardUID: HexBytes = "04A1B2C3D4E5F6"
        static let mastercard = "A0000000041010"
        static let mastercardFCI = "6F1A8407A0000000041010A50F500A4D617374657243617264870101"

        @Test func readersOfPcscdAreAddedWithBackendUpFirst() async throws {
            try await PCSCBackendFixture.with { fixture in
                let backend = fixture.startBackend()
                let up = try await fixture.events.next(.backendUp)
                let first = try await fixture.events.next(.readerAdded)
                let second = try await fixture.events.next(.readerAdded)
                #expect(up.reader == nil)
                #expect(Set([first.reader, second.reader]) == [.pcsc(Self.firstReader), .pcsc(Self.secondReader)])
                #expect(first.readerInfo?.state == .empty)
                let listed = backend.readers()
                #expect(listed.map(\.id) == [.pcsc(Self.firstReader), .pcsc(Self.secondReader)])
                #expect(listed.allSatisfy { $0.backend == "pcsc" && $0.state == .empty })
                await backend.shutdown()
            }
        }

        @Test func readerFilterKeepsOnlyReadersWhoseNameContainsASubstring() async throws {
            var configuration = Configuration.BackendSection()
            configuration.readers = ["PCD 00 01"]
            try await PCSCBackendFixture.with { fixture in
                let backend = fixture.startBackend(configuration: configuration)
                let added = try await fixture.events.next(.readerAdded)
                #expect(added.reader == .pcsc(Self.secondReader))
                // Every wanted reader is in place before the first reader.added is published.
                #expect(backend.readers().map(\.id) == [.pcsc(Self.secondReader)])
                await backend.shutdown()
                #expect(fixture.events.all(.readerAdded).count == 1)
            }
        }

        @Test func tapPublishesInsertedWithATRAndUIDThenHandsTheTapHandlerAWorkingChannel() async throws {
            try await PCSCBackendFixture.with { fixture in
                let backend = fixture.startBackend()
                _ = try await fixture.events.next(.readerAdded)
                try fixture.card("tap")
                let inserted = try await fixture.events.next(.cardInserted)
                #expect(inserted.reader == .pcsc(Self.firstReader))
                #expect(inserted.card == CardInfo(atr: Self.cardATR, uid: Self.cardUID))

                let tap = try await fixture.handler.next()
                #expect(tap.reader == .pcsc(Self.firstReader))
                #expect(tap.card == inserted.card)
                #expect(try tap.answer.get().hexString == Self.mastercardFCI + "9000")
                #expect(backend.readers().first { $0.id == .pcsc(Self.firstReader) }?.state == .present)

                try fixture.card("remove")
                let removed = try await fixture.events.next(.cardRemoved)
                #expect(removed.reader == .pcsc(Self.firstReader))
                #expect(fixture.events.all(.cardInserted).count == 1)
                await backend.shutdown()
            }
        }

        @Test func aTapOnTheSecondReaderIsPublishedForThatReader() async throws {
            try await PCSCBackendFixture.with { fixture in
                let backend = fixture.startBackend()
                _ = try await fixture.events.next(.readerAdded)
                _ = try await fixture.events.next(.readerAdded)
                try fixture.startCard(2)
                try fixture.card("tap", card: 2)
                let inserted = try await fixture.events.next(.cardInserted)
                #expect(inserted.reader == .pcsc(Self.secondReader))
                #expect(inserted.card == CardInfo(atr: Self.cardATR, uid: Self.cardUID))
                let tap = try await fixture.handler.next()
                #expect(tap.reader == .pcsc(Self.secondReader))
                #expect(try tap.answer.get().hexString == Self.mastercardFCI + "9000")
                try fixture.card("remove", card: 2)
                #expect(try await fixture.events.next(.cardRemoved).reader == .pcsc(Self.secondReader))
                await backend.shutdown()
            }
        }

        @Test func transmitReachesTheCardInTheFieldAndFollows61xxUnlessRaw() async throws {
            let profile = #"{"chain": ["A0000000041010"]}"#
            try await PCSCBackendFixture.with(cardProfile: profile) { fixture in
                let backend = fixture.startBackend()
                _ = try await fixture.events.next(.readerAdded)
                let reader = ReaderID.pcsc(Self.firstReader)
                let select = try CommandAPDU.select(aid: AID(hex: Self.mastercard))

                await #expect(throws: ReaderCommandError.noCard(reader)) {
                    try await backend.transmit(select, raw: false, on: reader)
                }
                await #expect(throws: ReaderCommandError.unknownReader(.pcsc("No Such Reader"))) {
                    try await backend.transmit(select, raw: false, on: .pcsc("No Such Reader"))
                }

                try fixture.card("tap")
                _ = try await fixture.handler.next()  // the session ran: 61xx was seen raw by the handler
                let chained = try await backend.transmit(select, raw: false, on: reader)
                #expect(chained.statusWord == .success)
                #expect(chained.data.hexString == Self.mastercardFCI)

                let raw = try await backend.transmit(select, raw: true, on: reader)
                #expect(raw.statusWord.sw1 == 0x61)
                #expect(Int(raw.statusWord.sw2) == Self.mastercardFCI.count / 2)
                #expect(raw.data.isEmpty)

                try fixture.card("remove")
                _ = try await fixture.events.next(.cardRemoved)
                await #expect(throws: ReaderCommandError.noCard(reader)) {
                    try await backend.transmit(select, raw: false, on: reader)
                }
                await backend.shutdown()
                await #expect(throws: ReaderCommandError.self) {
                    try await backend.transmit(select, raw: false, on: reader)
                }
            }
        }

        @Test func cardPulledMidSessionGivesTheHandlerCardRemovedAndTheBackendKeepsReading() async throws {
            try await PCSCBackendFixture.with { fixture in
                let backend = fixture.startBackend()
                _ = try await fixture.events.next(.readerAdded)
                // APDU 1 is the UID read, APDU 2 the handler's SELECT: the card leaves on that one.
                try fixture.card("pull-after 2")
                try fixture.card("tap")
                let pulled = try await fixture.handler.next()
                guard case .failure(let error) = pulled.answer else {
                    Issue.record("the SELECT the card left on was answered: \(pulled.answer)")
                    return
                }
                #expect(error.code == .cardRemoved)
                _ = try await fixture.events.next(.cardRemoved)

                try fixture.card("tap")
                let again = try await fixture.handler.next()
                #expect(try again.answer.get().hexString == Self.mastercardFCI + "9000")
                await backend.shutdown()
            }
        }

        @Test func pcscdKilledAndRestartedGivesBackendDownThenUpAndReadersAndTapsAgain() async throws {
            try await PCSCBackendFixture.with { fixture in
                let backend = fixture.startBackend()
                _ = try await fixture.events.next(.readerAdded)
                _ = try await fixture.events.next(.readerAdded)

                let beforeKill = fixture.events.count
                try fixture.killPcscd()
                let down = try await fixture.events.next(.backendDown)
                #expect(down.reason?.isEmpty == false)
                let removed = fixture.events.all(.readerRemoved, since: beforeKill).map(\.reader)
                #expect(Set(removed) == [.pcsc(Self.firstReader), .pcsc(Self.secondReader)])
                #expect(backend.readers().isEmpty)

                try fixture.restartPcscd()
                _ = try await fixture.events.next(.backendUp)
                _ = try await fixture.events.next(.readerAdded)
                #expect(fixture.events.all(.backendDown, since: beforeKill).count == 1)

                try fixture.card("tap")
                let inserted = try await fixture.events.next(.cardInserted)
                #expect(inserted.card?.uid == Self.cardUID)
                let tap = try await fixture.handler.next()
                #expect(try tap.answer.get().hexString == Self.mastercardFCI + "9000")
                await backend.shutdown()
            }
        }

        @Test func pcscdNotRunningAtStartGivesOneBackendDownThenUpWhenItArrives() async throws {
            try await PCSCBackendFixture.with(startPcscd: false) { fixture in
                let backend = fixture.startBackend()
                let down = try await fixture.events.next(.backendDown)
                #expect(down.reason?.isEmpty == false)
                #expect(backend.readers().isEmpty)

                try fixture.restartPcscd()
                _ = try await fixture.events.next(.backendUp)
                _ = try await fixture.events.next(.readerAdded)
                #expect(fixture.events.all(.backendDown).count == 1)
                await backend.shutdown()
            }
        }

        @Test(arguments: [true, false])
        func shutdownEndsEveryThreadBeforeItsDeadline(cardInField: Bool) async throws {
            try await PCSCBackendFixture.with { fixture in
                let backend = fixture.startBackend()
                _ = try await fixture.events.next(.readerAdded)
                if cardInField {
                    try fixture.card("tap")
                    _ = try await fixture.handler.next()
                }
                // Returning before this deadline means the threads ended rather than being left.
                let deadline = Duration.seconds(20)
                let clock = ContinuousClock()
                let started = clock.now
                await backend.shutdown(deadline: deadline)
                #expect(clock.now - started < deadline)
                #expect(backend.readers().isEmpty)
                #expect(fixture.events.all(.cardRemoved).count == (cardInField ? 1 : 0))
            }
        }

        @Test func shutdownReturnsAtItsDeadlineWhenAReaderThreadIsStuckWithTheCard() async throws {
            try await PCSCBackendFixture.with { fixture in
                // Stands for a transmit to a card that never answers: SCardCancel cannot end it.
                let stuck = StuckTapHandler()
                let backend = fixture.startBackend(handler: stuck)
                _ = try await fixture.events.next(.readerAdded)
                try fixture.card("tap")
                _ = try await fixture.events.next(.cardInserted)
                try await stuck.waitUntilEntered()

                await backend.shutdown(deadline: .milliseconds(300))
                #expect(stuck.isInside)

                stuck.release()
                // The left thread still finishes its card once it is free again.
                _ = try await fixture.events.next(.cardRemoved)
                #expect(!stuck.isInside)
            }
        }

        @Test func pcscdDyingWithACardInTheFieldGivesCardRemovedThenReaderRemovedLastThenBackendDown() async throws {
            try await PCSCBackendFixture.with { fixture in
                let backend = fixture.startBackend()
                _ = try await fixture.events.next(.readerAdded)
                _ = try await fixture.events.next(.readerAdded)
                try fixture.card("tap")
                _ = try await fixture.handler.next()
                try fixture.killPcscd()
                _ = try await fixture.events.next(.backendDown)
                let reader = ReaderID.pcsc(Self.firstReader)
                let ofReader = fixture.events.entries.filter { $0.reader == reader }.map(\.kind)
                // Only the reader's own thread publishes its events: the card leaves before the reader.
                #expect(Array(ofReader.suffix(2)) == [.cardRemoved, .readerRemoved], "\(ofReader)")
                let kinds = fixture.events.entries.map(\.kind)
                let lastRemoved = try #require(kinds.lastIndex(of: .readerRemoved))
                #expect(lastRemoved < (kinds.lastIndex(of: .backendDown) ?? -1), "\(kinds)")
                await backend.shutdown()
            }
        }

        @Test func everyPcscLiteCallRunsOnAThreadTheBackendOwns() async throws {
            // Through the chokepoint's seam: the name of the thread of every SCard* call. Socket
            // requests come from tasks; waking the reader for them (SCardCancel, a round trip to
            // pcscd) must still run on the backend's own threads.
            let threads = Mutex<[String: Set<String>]>([:])
            PCSCCalls.observe { function in
                let name = ThreadName.current
                threads.withLock { _ = $0["\(function)", default: []].insert(name.isEmpty ? "(unnamed)" : name) }
            }
            defer { PCSCCalls.observe(nil) }
            try await PCSCBackendFixture.with { fixture in
                let backend = fixture.startBackend()
                _ = try await fixture.events.next(.readerAdded)
                try fixture.card("tap")
                _ = try await fixture.handler.next()
                let select = try CommandAPDU.select(aid: AID(hex: Self.mastercard))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask { _ = try await backend.transmit(select, raw: false, on: .pcsc(Self.firstReader)) }
                    }
                    try await group.waitForAll()
                }
                try fixture.card("remove")
                _ = try await fixture.events.next(.cardRemoved)
                await backend.shutdown()
            }
            let seen = threads.withLock { $0 }
            #expect(seen["SCardCancel"] != nil, "the requests never woke the reader: \(seen)")
            for (function, names) in seen {
                #expect(names.allSatisfy { $0.hasPrefix("pcsc-") }, "\(function) ran on \(names.sorted())")
            }
        }

        /// The watchdog's reader half, in process with an injected hang: the first tap's session
        /// never returns. Past the budget plus pcsc's transport timeout the supervisor restarts
        /// the reader (reader.removed saying why, then reader.added); the card is read again on
        /// the new thread, and the old thread, once it comes back, publishes nothing.
        @Test func aReaderThreadStuckPastItsAllowanceIsRestartedAndTheCardReadAgain() async throws {
            try await PCSCBackendFixture.with { fixture in
                let handler = HangingFirstTap(then: fixture.handler)
                let backend = fixture.startBackend(handler: handler)
                var logger = Logger(label: "passtap.test.supervisor")
                logger.logLevel = .critical
                var budget = Configuration()
                budget.sessionBudgetMilliseconds = 200
                let supervisor = ReaderSupervisor(
                    backends: ReaderBackends([backend]), period: .milliseconds(100), live: LiveConfiguration(budget), logger: logger)
                supervisor.start()
                _ = try await fixture.events.next(.readerAdded)
                _ = try await fixture.events.next(.readerAdded)
                try fixture.card("tap")
                _ = try await fixture.events.next(.cardInserted)
                try await handler.waitUntilHeld()

                let removed = try await fixture.events.next(.readerRemoved)
                #expect(removed.reader == .pcsc(Self.firstReader))
                #expect(removed.readerInfo?.state == .unavailable)
                #expect(removed.readerInfo?.reason?.contains("stuck in a tap's session") == true, "\(String(describing: removed.readerInfo?.reason))")
                let added = try await fixture.events.next(.readerAdded)
                #expect(added.reader == .pcsc(Self.firstReader))
                #expect(supervisor.restarts == 1)
                // The old thread still holds its connection to the card; once it lets go, the new
                // thread reads the card that is still in the field.
                handler.release()
                let reread = try await fixture.handler.next()
                #expect(reread.reader == .pcsc(Self.firstReader))
                #expect(try reread.answer.get().hexString == Self.mastercardFCI + "9000")
                try fixture.card("remove")
                _ = try await fixture.events.next(.cardRemoved)
                #expect(handler.abandonedOnReturn.withLock { $0 } == true)
                // One reader.removed (the supervisor's) and one card.removed (the new thread's): the
                // old thread's own were dropped.
                #expect(fixture.events.all(.readerRemoved).count == 1)
                #expect(fixture.events.all(.cardRemoved).count == 1)
                #expect(supervisor.restarts == 1)
                await supervisor.stop()
                await backend.shutdown()
            }
        }

        @Test func shutdownWhilePcscdIsAwayReturnsBeforeItsDeadline() async throws {
            try await PCSCBackendFixture.with(startPcscd: false) { fixture in
                let backend = fixture.startBackend()
                _ = try await fixture.events.next(.backendDown)
                let deadline = Duration.seconds(20)
                let clock = ContinuousClock()
                let started = clock.now
                await backend.shutdown(deadline: deadline)
                #expect(clock.now - started < deadline)
                #expect(fixture.events.all(.backendUp).isEmpty)
            }
        }
    }
}

// MARK: - Fixture

/// pcscd (through `scripts/rig/pcscd-rig`) and the virtual card in control mode, for one test,
/// plus the event log and tap handler a backend under test reports to.
final class PCSCBackendFixture {
    let directory: URL
    private(set) var port: Int?
    let events = RecordedEvents()
    let handler = SelectingTapHandler(aid: PCSCScenarioTests.PCSCBackendTests.mastercard, pages: PCSCScenarioTests.PCSCBackendTests.pagesRead)
    /// The virtual cards by number: 1 on the first reader (vpcd on ``port``), 2 on the second.
    private var cardProcesses: [Int: Spawned] = [:]
    private var backends: [PCSCReaderBackend] = []

    private init(directory: URL) {
        self.directory = directory
    }

    /// Runs `body` with a fresh fixture under the machine-wide pcscd lock; stops all it started.
    static func with(
        startPcscd: Bool = true, cardProfile: String? = nil, _ body: (PCSCBackendFixture) async throws -> Void
    ) async throws {
        let lock = try await PcscdLock.acquire()
        defer { lock.release() }
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("passtap-backend-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fixture = PCSCBackendFixture(directory: directory)
        do {
            fixture.port = try await fixture.reservePort(startPcscd: startPcscd)
            try fixture.startCard(1, profile: cardProfile)
            try await body(fixture)
        } catch {
            await fixture.tearDown()
            throw error
        }
        await fixture.tearDown()
    }

    /// A backend publishing to ``events`` and tapping through ``handler``; started.
    func startBackend(
        configuration: Configuration.BackendSection = Configuration.BackendSection(), handler: (any TapHandler)? = nil
    ) -> PCSCReaderBackend {
        var logger = Logger(label: "passtap.test.pcsc")
        logger.logLevel = .critical
        let events = self.events
        let sink = EventSink { kind, reader, payload in events.append(kind, reader, payload) }
        let backend = PCSCReaderBackend(configuration: configuration, tapHandler: handler ?? self.handler, events: sink, logger: logger)
        backends.append(backend)
        backend.start()
        return backend
    }

    /// Sends one line command to virtual card `number` (`tap`, `remove`, `pull-after N`...):
    /// 1, the first reader's, by default; 2 is the second reader's (``startCard(_:profile:)``).
    func card(_ command: String, card number: Int = 1) throws {
        guard cardProcesses[number] != nil else { throw Rig.Failure(description: "virtual card \(number) was not started") }
        let control = try LineClient(path: controlSocket(of: number))
        try control.sendLine(command)
        let answer = try control.readLine(timeout: 15, what: "virtual card \(number)'s answer to \(command)")
        guard answer.contains("\"ok\": true") else {
            throw Rig.Failure(description: "virtual card \(number) refused '\(command)': \(answer)")
        }
    }

    /// Kills pcscd as a crash would, and returns once it is gone.
    func killPcscd() throws {
        let text = try String(contentsOf: directory.appendingPathComponent("pcscd.pid"), encoding: .utf8)
        guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Rig.Failure(description: "pcscd-rig left no pid in \(directory.path)")
        }
        kill(pid, SIGKILL)
        let deadline = Date().addingTimeInterval(15)
        while Rig.isAlive(pid) {
            guard Date() < deadline else { throw Rig.Failure(description: "pcscd \(pid) survived SIGKILL") }
            usleep(20_000)
        }
    }

    /// Starts pcscd (again) on the fixture's port.
    func restartPcscd() throws {
        guard let port else { throw Rig.Failure(description: "no vpcd port reserved") }
        try Rig.run(Self.rigScript, ["start", directory.path, String(port)])
    }

    private static var rigScript: String { Rig.repository.appendingPathComponent("scripts/rig/pcscd-rig").path }

    /// Starts pcscd and returns vpcd's port, or (without pcscd) finds a free port pair for later.
    private func reservePort(startPcscd: Bool) async throws -> Int {
        try await PcscdLock.waitForNoPcscd()
        // Without pcscd: start and stop once, so the rig picks a free pair and writes the
        // reader.conf.d that restartPcscd uses later.
        let output = try Rig.run(Self.rigScript, ["start", directory.path])
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("port=") }), let port = Int(line.dropFirst(5)) else {
            throw Rig.Failure(description: "pcscd-rig did not report a port: \(output)")
        }
        if !startPcscd {
            try Rig.run(Self.rigScript, ["stop", directory.path])
        }
        return port
    }

    /// Starts virtual card `number` (1 or 2) on its reader, vpcd on ``port`` + number - 1, with
    /// `profile` (JSON text) if given. Card 1 starts with the fixture; a test starts card 2.
    func startCard(_ number: Int, profile: String? = nil) throws {
        guard let port else { return }
        guard number == 1 || number == 2, cardProcesses[number] == nil else {
            throw Rig.Failure(description: "virtual card \(number) cannot start (vpcd has two readers; one card each)")
        }
        let suffix = number == 1 ? "" : String(number)
        let log = directory.appendingPathComponent("card\(suffix).log").path
        let socket = controlSocket(of: number)
        var arguments = [
            "python3", Rig.repository.appendingPathComponent("scripts/rig/virtual_card.py").path,
            "--control", socket, "--port", String(port + number - 1),
        ]
        if let profile {
            let file = directory.appendingPathComponent("profile\(suffix).json")
            try profile.write(to: file, atomically: true, encoding: .utf8)
            arguments += ["--profile", file.path]
        }
        cardProcesses[number] = try Spawned.start("/usr/bin/env", arguments, stdout: log, stderr: log)
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline else { throw Rig.Failure(description: "the virtual card did not open \(socket)") }
            usleep(20_000)
        }
    }

    private func controlSocket(of card: Int) -> String {
        directory.appendingPathComponent(card == 1 ? "card.sock" : "card\(card).sock").path
    }

    private func tearDown() async {
        for backend in backends {
            await backend.shutdown()
        }
        for card in cardProcesses.values {
            card.signal(SIGTERM)
            card.wait(seconds: 10)
        }
        _ = try? Rig.run(Self.rigScript, ["stop", directory.path])
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The machine has one pcscd: suites that start one take this lock first. It is an `flock` on a
/// file in the temporary directory, so it holds across suites in this process and across test
/// processes alike (two descriptors of the same file conflict even within one process).
private struct PcscdLock {
    static let path = NSTemporaryDirectory() + "passtap-pcscd.lock"
    let descriptor: Int32

    static func acquire(timeout: Duration = .seconds(600)) async throws -> PcscdLock {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Rig.Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard clock.now < deadline else {
                close(descriptor)
                throw Rig.Failure(description: "another test held \(path) for too long")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return PcscdLock(descriptor: descriptor)
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Suites that do not take the lock (or a developer's pcscd) may still run one: wait it out.
    static func waitForNoPcscd(timeout: Duration = .seconds(120)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !((try? Rig.run("/bin/pidof", ["pcscd"])) ?? "").isEmpty {
            guard clock.now < deadline else {
                throw Rig.Failure(description: "another pcscd is running; stop it (systemctl stop pcscd.socket pcscd)")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

// MARK: - Recorders

/// Every event the backend published, in order, with a read cursor for waiting on the next one.
final class RecordedEvents: Sendable {
    struct Entry: Sendable {
        let kind: EventKind
        let reader: ReaderID?
        let payload: EventPayload

        var card: CardInfo? {
            if case .card(let card) = payload { return card }
            return nil
        }
        var readerInfo: ReaderInfo? {
            if case .reader(let info) = payload { return info }
            return nil
        }
        var reason: String? {
            if case .backend(_, let reason) = payload { return reason }
            return nil
        }
    }

    private struct State {
        var entries: [Entry] = []
        var cursor = 0
    }

    private let state = Mutex(State())

    func append(_ kind: EventKind, _ reader: ReaderID?, _ payload: EventPayload) {
        state.withLock { $0.entries.append(Entry(kind: kind, reader: reader, payload: payload)) }
    }

    /// How many events were published so far.
    var count: Int { state.withLock { $0.entries.count } }

    /// Every event published so far, in order.
    var entries: [Entry] { state.withLock { $0.entries } }

    /// The events of `kind` from index `since` on.
    func all(_ kind: EventKind, since: Int = 0) -> [Entry] {
        state.withLock { Array($0.entries.dropFirst(since)).filter { $0.kind == kind } }
    }

    /// The first event of `kind` after the cursor; moves the cursor past it. Fails after
    /// `timeout` (a missing event, not a slow one: pcscd's presence poll is 400 ms).
    func next(_ kind: EventKind, timeout: Duration = .seconds(20)) async throws -> Entry {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let found: Entry? = state.withLock { state in
                guard let index = state.entries.indices.dropFirst(state.cursor).first(where: { state.entries[$0].kind == kind }) else {
                    return nil
                }
                state.cursor = index + 1
                return state.entries[index]
            }
            if let found { return found }
            guard clock.now < deadline else {
                let seen = state.withLock { $0.entries.map(\.kind.rawValue) }
                throw Rig.Failure(description: "no \(kind.rawValue) event; published so far: \(seen)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A tap handler that selects one application over the channel it is given and records the
/// answer, then reads the given pages of a Type 2 tag's memory when the tap has one.
final class SelectingTapHandler: TapHandler {
    struct Tap: Sendable {
        let reader: ReaderID
        let card: CardInfo
        let answer: Result<[UInt8], CardTransportError>
        /// What reading each page gave, in order; nil when the tap had no ``TagMemory``.
        var pages: [Result<[UInt8], CardTransportError>]?
    }

    private let select: [UInt8]
    private let pagesToRead: [UInt8]
    private let taps = Mutex<(recorded: [Tap], cursor: Int)>(([], 0))

    init(aid: String, pages: [UInt8] = []) {
        select = (try? CommandAPDU.select(aid: AID(hex: aid)).bytes) ?? []
        pagesToRead = pages
    }

    func handleTap(reader: ReaderID, tap: PassTapCore.Tap) {
        let answer: Result<[UInt8], CardTransportError>
        if let channel = tap.channel {
            do {
                answer = .success(try channel.transmit(select))
            } catch {
                answer = .failure(error)
            }
        } else {
            answer = .failure(CardTransportError(.transportFailed, "the tap has no channel"))
        }
        let pages = tap.memory.map { memory in
            pagesToRead.map { page in Result { () throws(CardTransportError) in try memory.read(page: page) } }
        }
        taps.withLock { $0.recorded.append(Tap(reader: reader, card: tap.card, answer: answer, pages: pages)) }
    }

    /// The next tap handled after the last one returned; fails after `timeout`.
    func next(timeout: Duration = .seconds(20)) async throws -> Tap {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let found: Tap? = taps.withLock { taps in
                guard taps.cursor < taps.recorded.count else { return nil }
                defer { taps.cursor += 1 }
                return taps.recorded[taps.cursor]
            }
            if let found { return found }
            guard clock.now < deadline else { throw Rig.Failure(description: "the tap handler was not called") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A tap handler that does not return until ``release()``: a reader thread stuck with its card.
private final class StuckTapHandler: TapHandler {
    private let inside = Mutex(false)
    private let gate = DispatchSemaphore(value: 0)

    /// Whether a tap is being held right now.
    var isInside: Bool { inside.withLock { $0 } }

    func handleTap(reader: ReaderID, tap: Tap) {
        inside.withLock { $0 = true }
        gate.wait()
        inside.withLock { $0 = false }
    }

    /// Lets the held tap return.
    func release() {
        gate.signal()
    }

    /// Returns once a tap is held; fails after `timeout`.
    func waitUntilEntered(timeout: Duration = .seconds(20)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !isInside {
            guard clock.now < deadline else { throw Rig.Failure(description: "the tap handler was not called") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A tap handler whose first tap does not return until ``release()`` (a session stuck in a call
/// that never ends); every later tap goes to `then`.
private final class HangingFirstTap: TapHandler {
    private let calls = Mutex(0)
    private let held = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)
    private let then: any TapHandler

    init(then: any TapHandler) {
        self.then = then
    }

    func handleTap(reader: ReaderID, tap: Tap) {
        let first = calls.withLock { calls in
            defer { calls += 1 }
            return calls == 0
        }
        guard first else { return then.handleTap(reader: reader, tap: tap) }
        held.signal()
        gate.wait()
        abandonedOnReturn.withLock { $0 = tap.isAbandoned() }
    }

    /// Whether the held tap, once released, was told its thread had been given up (so a real
    /// tap handler publishes nothing); `nil` until it returns.
    let abandonedOnReturn = Mutex<Bool?>(nil)

    /// Returns once the first tap is held; fails after 20 s.
    func waitUntilHeld() async throws {
        let entered = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.held.wait(timeout: .now() + 20) == .success) }.start()
        }
        guard entered else { throw Rig.Failure(description: "the tap handler was not called") }
    }

    func release() {
        gate.signal()
    }
}
