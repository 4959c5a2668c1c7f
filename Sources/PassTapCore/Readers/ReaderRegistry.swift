public import ISO7816
public import Logging
import Synchronization

/// The readers of one backend, by ``ReaderID``, and their threads: the one table that
/// `readers.list`, `card.transmit` and the ``ReaderSupervisor`` read, as pcsc-lite's
/// `readerfactory.c` keeps one table of readers that each hotplug source only adds to and removes
/// from.
///
/// The backend's ``ReaderDiscovery`` runs on a thread the registry starts and hands it the
/// readers there now (``reconcile(_:)``). The registry gives each new reader a thread of its own
/// running the shared ``ReaderLifecycle``, stops a reader that left (`reader.removed`, "the reader
/// was removed"), starts a reader whose thread ended again once it is wanted and its backoff has
/// passed, and restarts a reader whose thread is stuck (``restart(_:because:)``). A reader runs on
/// one live thread at a time: one that comes back before its old thread ended is started after
/// that thread published its `reader.removed`. It also publishes `backend.up` and `backend.down`
/// for the discovery, once per change.
///
/// Every method is safe from any thread and never blocks, except ``reconcile(_:)`` and
/// ``removeAll(because:)``, which only the discovery thread calls.
public final class ReaderRegistry: Sendable {
    /// Pauses before a reader whose thread ended is started again: doubling from first to last.
    public static let restartBackoff = ReaderLifecycle.Backoff(first: 0.25, last: 5)
    /// A reader that ran this long before its thread ended starts its backoff from the first pause.
    static let healthySeconds: Double = 10
    /// How long ``removeAll(because:)`` waits for the readers' threads (a thread stuck in a
    /// transfer is left to end on its own).
    static let readerEndSeconds: Double = 2

    /// A reader with a live thread: the slot it runs, and the address it was started for.
    private struct Running {
        var slot: ReaderSlot
        var address: String
    }

    private struct Shared {
        /// The readers announced (probed and not stopped), for `readers.list` and `card.transmit`.
        var slots: [ReaderID: ReaderSlot] = [:]
        /// Readers whose thread runs (a stopped reader's until its thread ends; an abandoned one's
        /// no longer).
        var running: [ReaderID: Running] = [:]
        /// Readers restarted while a thread of theirs was stuck, with that thread's slot, until it
        /// ends.
        var abandoned: [ReaderID: ObjectIdentifier] = [:]
        /// When a reader whose thread ended may start again, and the pause that gave that time.
        var retry: [ReaderID: (after: ContinuousClock.Instant, delay: Double)] = [:]
        /// Whether `backend.up` (true) or `backend.down` (false) was published last.
        var up: Bool?
        var discovery: (any ReaderDiscovery)?
        var stopping = false
    }

    /// The backend whose readers these are.
    public let backend: ReaderID.Backend
    /// The longest one exchange with a card may take on these readers (their transport's own
    /// timeout): a reader's thread busy for longer than a tap's budget plus this is stuck.
    public let transportTimeout: Duration
    private let tapHandler: any TapHandler
    private let transmitter: APDUTransmitter
    private let events: EventSink
    private let backoff: ReaderLifecycle.Backoff
    private let restartBackoff: ReaderLifecycle.Backoff
    private let logger: Logger
    private let shared = Mutex(Shared())
    /// The discovery's pause; a reader's thread ending signals it.
    private let wait = StoppableWait()
    private let threads = ReaderThreads()

    /// An empty registry of `backend`'s readers; nothing runs until ``start(_:)`` or ``reconcile(_:)``.
    /// - Parameters:
    ///   - tapHandler: called on a reader's thread for every card that arrives.
    ///   - transmitter: the chaining and caps used for `card.transmit`.
    ///   - events: where the readers' and the backend's events go (the event hub).
    ///   - backoff: pauses before a reader that failed is reopened (``ReaderLifecycle``).
    ///   - restartBackoff: pauses before a reader whose thread ended is started again.
    public init(
        backend: ReaderID.Backend, transportTimeout: Duration, tapHandler: any TapHandler, transmitter: APDUTransmitter = APDUTransmitter(),
        events: EventSink, backoff: ReaderLifecycle.Backoff = .standard, restartBackoff: ReaderLifecycle.Backoff = ReaderRegistry.restartBackoff,
        logger: Logger
    ) {
        self.backend = backend
        self.transportTimeout = transportTimeout
        self.tapHandler = tapHandler
        self.transmitter = transmitter
        self.events = events
        self.backoff = backoff
        self.restartBackoff = restartBackoff
        self.logger = logger
    }

    // MARK: The table

    /// The slots of the readers announced now.
    public var slots: [ReaderSlot] { shared.withLock { Array($0.slots.values) } }

    /// The slot of `id`, if it is announced now.
    public func slot(for id: ReaderID) -> ReaderSlot? {
        shared.withLock { $0.slots[id] }
    }

    /// The readers announced now, with their state, sorted by id.
    public func readers() -> [ReaderInfo] {
        slots.map(\.info).sorted { $0.id < $1.id }
    }

    /// Sends one APDU to the card on `reader` through its thread (``ReaderSlot/transmit(_:raw:)``).
    public func transmit(_ apdu: CommandAPDU, raw: Bool, on reader: ReaderID) async throws(ReaderCommandError) -> ResponseAPDU {
        guard let slot = slot(for: reader) else { throw .unknownReader(reader) }
        return try await slot.transmit(apdu, raw: raw)
    }

    /// Runs `work` on `reader`'s thread (``ReaderSlot/perform(_:)``).
    public func perform<T: Sendable>(on reader: ReaderID, _ work: @escaping @Sendable (ReaderAccess) -> T) async throws(ReaderCommandError) -> T {
        guard let slot = slot(for: reader) else { throw .unknownReader(reader) }
        return try await slot.perform(work)
    }

    // MARK: For the discovery

    /// Whether ``stop()`` was called.
    public var isStopping: Bool { shared.withLock { $0.stopping } }

    /// Pauses the discovery thread for `duration`, or until the registry stops or a reader's
    /// thread ends or is restarted (so a reader can start again soon).
    public func pause(for duration: Duration) {
        wait.pause(for: duration)
    }

    /// Publishes `backend.up` unless it was the last of the two; returns whether it did.
    @discardableResult
    public func backendUp() -> Bool {
        guard mark(up: true) else { return false }
        events.publish(.backendUp, nil, .backend(name: backend.rawValue, reason: nil))
        return true
    }

    /// Publishes `backend.down` with `reason` unless it was the last of the two; returns whether
    /// it did.
    @discardableResult
    public func backendDown(reason: String) -> Bool {
        guard mark(up: false) else { return false }
        events.publish(.backendDown, nil, .backend(name: backend.rawValue, reason: reason))
        return true
    }

    /// Notes whether the backend is up; returns whether that changed.
    private func mark(up: Bool) -> Bool {
        shared.withLock { shared in
            defer { shared.up = up }
            return shared.up != up
        }
    }

    /// Makes the readers there now the ones that run: stops each reader not in `entries` (or
    /// there at another address), and starts each one in `entries` that has no thread, once its
    /// backoff has passed. A new reader's thread first probes its port (``ReaderPort/probe()``);
    /// only a reader that is there is announced. Called by the discovery thread, one call at a
    /// time; does nothing once the registry stops.
    public func reconcile(_ entries: [ReaderEntry]) {
        let now = ContinuousClock.now
        var wanted: [ReaderID: ReaderEntry] = [:]
        for entry in entries where wanted[entry.id] == nil { wanted[entry.id] = entry }
        let (left, starting): ([ReaderSlot], [(ReaderEntry, ReaderSlot, any ReaderPort)]) = shared.withLock { shared in
            guard !shared.stopping else { return ([], []) }
            let left = shared.running.values.filter { wanted[$0.slot.id]?.address != $0.address && !$0.slot.isStopping }.map(\.slot)
            for slot in left where shared.slots[slot.id] === slot { shared.slots[slot.id] = nil }
            var starting: [(ReaderEntry, ReaderSlot, any ReaderPort)] = []
            for entry in wanted.values.sorted(by: { $0.id < $1.id }) where shared.running[entry.id] == nil {
                if let retry = shared.retry[entry.id], retry.after > now { continue }
                let port = entry.makePort()
                let slot = ReaderSlot(id: entry.id, port: port)
                shared.running[entry.id] = Running(slot: slot, address: entry.address)
                starting.append((entry, slot, port))
            }
            return (left, starting)
        }
        for slot in left.sorted(by: { $0.id < $1.id }) {
            logger.info("Reader removed", metadata: ["reader.id": "\(slot.id)"])
            slot.stop(because: "the reader was removed")
        }
        for (entry, slot, port) in starting {
            startThread(of: slot, at: entry.address, port: port)
        }
    }

    /// Stops every reader with `reason` (their stack went away) and waits for their threads, at
    /// most ``readerEndSeconds``, so their `reader.removed` come before the `backend.down` that
    /// may follow. Called by the discovery thread.
    public func removeAll(because reason: String) {
        let stopped: [ReaderSlot] = shared.withLock { shared in
            shared.slots.removeAll()
            return shared.running.values.map(\.slot)
        }
        // At shutdown the slots are stopped already (answering `shutting_down`): this changes nothing.
        stopped.forEach { $0.stop(because: reason) }
        let ids = stopped.map(\.id)
        _ = wait.wait(until: .now + .seconds(Self.readerEndSeconds)) {
            shared.withLock { shared in !ids.contains { shared.running[$0] != nil } }
        }
    }

    // MARK: Starting and stopping

    /// Starts the discovery on a thread of its own (`<backend>-monitor`).
    public func start(_ discovery: any ReaderDiscovery) {
        shared.withLock { $0.discovery = discovery }
        threads.spawn(name: "\(backend.rawValue)-monitor") { [self] in
            discovery.run(in: self)
            removeAll(because: "passtapd is stopping")
            logger.debug("Reader discovery thread ended", metadata: ["backend": "\(backend)"])
        }
    }

    /// Runs `body` on a thread of the backend's own (pcsc-lite's canceller), counted so shutdown
    /// waits for it.
    public func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
        threads.spawn(name: name, body)
    }

    /// Stops the discovery and every reader: queued requests are answered `shutting_down` at once,
    /// and each thread's wait ends. Never blocks.
    public func stop() {
        let (running, discovery) = shared.withLock { shared in
            shared.stopping = true
            return (shared.running.values.map(\.slot), shared.discovery)
        }
        discovery?.stop()
        running.forEach { $0.stop() }
        wait.stop()
    }

    /// ``stop()``, then waits for the backend's threads, but no longer than `deadline` (a thread
    /// stuck in a transfer to a card that never answers is left to end on its own); returns
    /// whether they all ended.
    @discardableResult
    public func shutdown(deadline: Duration) async -> Bool {
        stop()
        guard await waitForThreads(within: deadline) else {
            logger.warning(
                "Reader threads still busy at the shutdown deadline (a card that never answers); leaving them",
                metadata: ["backend": "\(backend)", "reader.live_threads": "\(threads.liveCount)"])
            return false
        }
        return true
    }

    /// Waits for every thread of the backend, but no longer than `deadline`; returns whether they
    /// all ended.
    public func waitForThreads(within deadline: Duration) async -> Bool {
        await threads.allExited(within: deadline)
    }

    /// The number of the backend's threads that run now.
    public var liveThreads: Int { threads.liveCount }

    /// Abandons a reader whose thread is stuck (``ReaderSlot/abandon(because:events:)``:
    /// `reader.removed` with `reason`) and lets the discovery start it anew on a new thread. Never
    /// blocks. False when `slot` is not the reader's current one, or an earlier thread of this
    /// reader, given up already, has not ended yet: one stuck thread per reader at most, so a
    /// card that never answers cannot pile up threads.
    public func restart(_ slot: ReaderSlot, because reason: String) -> Bool {
        let id = slot.id
        let current = shared.withLock { shared in
            !shared.stopping && shared.running[id]?.slot === slot && shared.abandoned[id] == nil
        }
        // reader.removed goes out before the table lets a new thread start (and publish reader.added).
        guard current, slot.abandon(because: reason, events: events) else { return false }
        shared.withLock { shared in
            if shared.slots[id] === slot { shared.slots[id] = nil }
            if shared.running[id]?.slot === slot {
                shared.running[id] = nil
                shared.abandoned[id] = ObjectIdentifier(slot)
            }
        }
        logger.warning("Reader restarted", metadata: ["reader.id": "\(id)"])
        wait.signal()
        return true
    }

    // MARK: A reader's thread

    private func startThread(of slot: ReaderSlot, at address: String, port: any ReaderPort) {
        let lifecycle = ReaderLifecycle(
            slot: slot, port: port, tapHandler: tapHandler, transmitter: transmitter, events: events, backoff: backoff, logger: logger)
        threads.spawn(name: "\(backend.rawValue)-reader") { [self] in
            let started = ContinuousClock.now
            if let fault = port.probe(), fault.kind == .gone {
                logger.debug("Reader not answering yet", metadata: ["reader.id": "\(slot.id)", "reason": "\(fault.reason)"])
            } else if announce(slot) {
                logger.info("Reader added", metadata: ["reader.id": "\(slot.id)", "reader.address": "\(address)"])
                lifecycle.run()
            }
            threadEnded(slot, ranFor: started.duration(to: .now))
        }
    }

    /// Puts a probed reader's slot in the table (`readers.list`, `card.transmit`); false when it
    /// was stopped meanwhile.
    private func announce(_ slot: ReaderSlot) -> Bool {
        shared.withLock { shared in
            guard !shared.stopping, !slot.isStopping, shared.running[slot.id]?.slot === slot else { return false }
            shared.slots[slot.id] = slot
            return true
        }
    }

    /// A reader's thread ended (its reader was lost or left, or the registry stops): the reader is
    /// forgotten, so it starts anew once it is wanted and its backoff has passed.
    private func threadEnded(_ slot: ReaderSlot, ranFor: Duration) {
        let id = slot.id
        shared.withLock { shared in
            // An abandoned thread that came back: the reader runs on a new one now.
            if shared.abandoned[id] == ObjectIdentifier(slot) { shared.abandoned[id] = nil }
            guard shared.running[id]?.slot === slot else { return }
            shared.running[id] = nil
            if shared.slots[id] === slot { shared.slots[id] = nil }
            var delay = restartBackoff.first
            if let previous = shared.retry[id]?.delay, ranFor < .milliseconds(Int(Self.healthySeconds * 1000)) {
                delay = min(previous * 2, restartBackoff.last)
            }
            shared.retry[id] = (ContinuousClock.now + .milliseconds(Int(delay * 1000)), delay)
        }
        wait.signal()
    }
}
