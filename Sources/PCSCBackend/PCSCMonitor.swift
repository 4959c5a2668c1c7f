import Foundation
import Logging
import PassTapCore
import Synchronization

/// The body of the monitor thread: keeps a context to pcscd (reconnecting with backoff when it
/// goes away), watches `\\?PnP?\Notification` for readers coming and going, and gives each
/// reader a thread of its own running the shared ``ReaderLifecycle``.
///
/// The monitor publishes only `backend.up` and `backend.down`; each reader's own thread
/// publishes that reader's events, `reader.removed` last.
final class PCSCMonitor: Sendable {
    /// Backoff between reconnection attempts: doubles from the first to the last value.
    static let backoff: (first: Double, last: Double) = (0.1, 5.0)
    /// How long the monitor waits for removed readers' threads before it goes on.
    static let readerEndSeconds: Double = 2

    private struct Shared {
        var slots: [String: ReaderSlot] = [:]
        /// Readers whose thread runs, by name, with the slot it runs (a removed reader's until its
        /// thread ends; an abandoned one's no longer).
        var running: [String: ObjectIdentifier] = [:]
        /// Readers restarted while a thread of theirs was stuck, with that thread's slot, until it
        /// ends.
        var abandoned: [String: ObjectIdentifier] = [:]
        var context: PCSCContext?
        var stopping = false
    }

    private let shared = Mutex(Shared())
    private let wake = NSCondition()
    private let configuration: Configuration.BackendSection
    private let canceller: PCSCCanceller
    private let threads: ReaderThreads
    private let events: EventSink
    private let makeLifecycle: @Sendable (ReaderSlot, PCSCReaderPort) -> ReaderLifecycle
    private let logger: Logger

    init(
        configuration: Configuration.BackendSection, canceller: PCSCCanceller, threads: ReaderThreads, events: EventSink,
        logger: Logger, makeLifecycle: @escaping @Sendable (ReaderSlot, PCSCReaderPort) -> ReaderLifecycle
    ) {
        self.configuration = configuration
        self.canceller = canceller
        self.threads = threads
        self.events = events
        self.logger = logger
        self.makeLifecycle = makeLifecycle
    }

    var slots: [ReaderSlot] { shared.withLock { Array($0.slots.values) } }

    func slot(for id: ReaderID) -> ReaderSlot? {
        guard id.backend == .pcsc else { return nil }
        return shared.withLock { $0.slots[id.name] }
    }

    private var isStopping: Bool { shared.withLock { $0.stopping } }

    /// Abandons a reader whose thread is stuck and lets the next reconcile (within a wait slice)
    /// start it anew; false when the slot is not the reader's current one, or an earlier
    /// abandoned thread of this reader still runs. Never blocks.
    func restart(_ slot: ReaderSlot, because reason: String) -> Bool {
        let name = slot.id.name
        let current = shared.withLock { shared in
            !shared.stopping && shared.slots[name] === slot && shared.abandoned[name] == nil
        }
        // reader.removed goes out before the maps let a new thread start (and publish reader.added).
        guard current, slot.abandon(because: reason, events: events) else { return false }
        shared.withLock { shared in
            if shared.slots[name] === slot { shared.slots[name] = nil }
            if shared.running[name] == ObjectIdentifier(slot) {
                shared.running[name] = nil
                shared.abandoned[name] = ObjectIdentifier(slot)
            }
        }
        logger.warning("Reader restarted", metadata: ["reader.id": "\(slot.id)"])
        return true
    }

    /// Stops the monitor and every reader (each wakes through the canceller). Never blocks.
    func stop() {
        let (context, slots) = shared.withLock { shared in
            shared.stopping = true
            return (shared.context, Array(shared.slots.values))
        }
        if let context { canceller.cancel(context) }
        slots.forEach { $0.stop() }
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    func run() {
        var up: Bool? = nil
        var delay = Self.backoff.first
        while !isStopping {
            let context: PCSCContext
            do {
                context = try PCSCContext(logger: logger)
            } catch {
                if up != false {
                    logger.warning("pcscd is not reachable; retrying with backoff", metadata: ["error": "\(error)"])
                    events.publish(.backendDown, nil, .backend(name: ReaderID.Backend.pcsc.rawValue, reason: error.message))
                    up = false
                }
                sleep(seconds: delay)
                delay = min(delay * 2, Self.backoff.last)
                continue
            }
            delay = Self.backoff.first
            let attached = shared.withLock { shared in
                shared.context = context
                return !shared.stopping
            }
            guard attached else { break }
            if up != true {
                logger.info("pcscd is reachable")
                events.publish(.backendUp, nil, .backend(name: ReaderID.Backend.pcsc.rawValue, reason: nil))
                up = true
            }
            let reason = watchReaders(context)
            shared.withLock { $0.context = nil }
            context.release()
            removeAll()
            if let reason, !isStopping {
                logger.warning("pcscd went away; reconnecting", metadata: ["error": "\(reason)"])
                events.publish(.backendDown, nil, .backend(name: ReaderID.Backend.pcsc.rawValue, reason: reason.message))
                up = false
                sleep(seconds: delay)
            }
        }
        removeAll()
        logger.debug("Monitor thread ended")
    }

    /// Follows readers until pcscd goes away (returns why) or the monitor stops (returns nil).
    private func watchReaders(_ context: PCSCContext) -> PCSCError? {
        while !isStopping {
            let names: [String]
            do {
                names = try context.readerNames()
            } catch {
                if error.meansServiceGone { return error }
                logger.warning("Cannot list readers", metadata: ["error": "\(error)"])
                sleep(seconds: Self.backoff.last)
                continue
            }
            reconcile(names)
            // pcsc-lite's convention: the reader count in the top 16 bits of the known state.
            let known = ReaderWatch(name: PCSCContext.plugAndPlayReader, state: UInt32(names.count) << 16)
            do {
                _ = try context.waitForChange([known], timeoutMilliseconds: PCSCReaderDriver.waitSliceMilliseconds)
            } catch where error.code == .timeout || error.code == .cancelled {
                continue
            } catch {
                if error.meansServiceGone { return error }
                logger.warning("Reader watch failed", metadata: ["error": "\(error)"])
                sleep(seconds: Self.backoff.last)
            }
        }
        return nil
    }

    private func reconcile(_ names: [String]) {
        let wanted = Set(names.filter(configuration.accepts(readerName:)))
        let removed: [ReaderSlot] = shared.withLock { shared in
            guard !shared.stopping else { return [] }
            return shared.slots.keys.filter { !wanted.contains($0) }.compactMap { shared.slots.removeValue(forKey: $0) }
        }
        for slot in removed {
            logger.info("Reader removed", metadata: ["reader.id": "\(slot.id)"])
            slot.stop(because: "the reader was removed")
        }
        // A reader that came back before its old thread ended is added once that thread has
        // published its reader.removed.
        waitForThreads(of: removed.map(\.id.name))
        let added: [(ReaderSlot, PCSCReaderPort)] = shared.withLock { shared in
            guard !shared.stopping else { return [] }
            return wanted.filter { shared.slots[$0] == nil && shared.running[$0] == nil }.sorted().map { name in
                let port = PCSCReaderPort(readerName: name, canceller: canceller, logger: logger)
                let slot = ReaderSlot(id: .pcsc(name), port: port)
                shared.slots[name] = slot
                shared.running[name] = ObjectIdentifier(slot)
                return (slot, port)
            }
        }
        for (slot, port) in added {
            logger.info("Reader added", metadata: ["reader.id": "\(slot.id)"])
            let lifecycle = makeLifecycle(slot, port)
            threads.spawn(name: "pcsc-reader") { [self] in
                lifecycle.run()
                threadEnded(slot)
            }
        }
    }

    private func threadEnded(_ slot: ReaderSlot) {
        let name = slot.id.name
        shared.withLock { shared in
            // An abandoned thread that came back: the reader runs on a new one now.
            if shared.abandoned[name] == ObjectIdentifier(slot) { shared.abandoned[name] = nil }
            guard shared.running[name] == ObjectIdentifier(slot) else { return }
            shared.running[name] = nil
            // A thread that ended by itself leaves no reader behind: the next reconcile (within
            // a wait slice) adds the reader anew if pcscd still lists it.
            if shared.slots[name] === slot, !slot.isStopping { shared.slots[name] = nil }
        }
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    /// Blocks the monitor thread until the named readers' threads have ended, at most
    /// ``readerEndSeconds`` (a thread stuck in a transfer is left to end on its own).
    private func waitForThreads(of names: [String]) {
        guard !names.isEmpty else { return }
        let deadline = Date(timeIntervalSinceNow: Self.readerEndSeconds)
        wake.lock()
        defer { wake.unlock() }
        while shared.withLock({ shared in names.contains { shared.running[$0] != nil } }), Date() < deadline {
            _ = wake.wait(until: deadline)
        }
    }

    /// Stops every reader and waits for their threads, so their `reader.removed` events come
    /// before the `backend.down` that may follow.
    private func removeAll() {
        let (slots, stopping) = shared.withLock { shared in
            defer { shared.slots.removeAll() }
            return (Array(shared.slots.values), shared.stopping)
        }
        // At shutdown the slots are stopped already (answering `shutting_down`).
        if !stopping { slots.forEach { $0.stop(because: "pcscd went away") } }
        waitForThreads(of: slots.map(\.id.name))
    }

    /// Sleeps, but returns at once when ``stop()`` is called.
    private func sleep(seconds: Double) {
        wake.lock()
        defer { wake.unlock() }
        if !isStopping {
            _ = wake.wait(until: Date(timeIntervalSinceNow: seconds))
        }
    }
}
