import Foundation
import Logging
import PassTapCore
import Synchronization

/// The body of the monitor thread: keeps a context to pcscd (reconnecting with backoff when it
/// goes away), watches `\\?PnP?\Notification` for readers coming and going, and gives each
/// reader a thread of its own.
final class PCSCMonitor: Sendable {
    /// Backoff between reconnection attempts: doubles from the first to the last value.
    static let backoff: (first: Double, last: Double) = (0.1, 5.0)

    private struct Shared {
        var slots: [String: ReaderSlot] = [:]
        var context: PCSCContext?
        var stopping = false
    }

    private let shared = Mutex(Shared())
    private let wake = NSCondition()
    private let configuration: Configuration.PCSC
    private let makeLoop: @Sendable (ReaderSlot) -> PCSCReaderLoop
    private let threads: ThreadTracker
    private let publish: TapCoordinator.Publish
    private let logger: Logger

    init(
        configuration: Configuration.PCSC, threads: ThreadTracker, logger: Logger,
        publish: @escaping TapCoordinator.Publish, makeLoop: @escaping @Sendable (ReaderSlot) -> PCSCReaderLoop
    ) {
        self.configuration = configuration
        self.threads = threads
        self.logger = logger
        self.publish = publish
        self.makeLoop = makeLoop
    }

    var slots: [ReaderSlot] { shared.withLock { Array($0.slots.values) } }

    func slot(for id: ReaderID) -> ReaderSlot? {
        shared.withLock { $0.slots.values.first { $0.id == id } }
    }

    private var isStopping: Bool { shared.withLock { $0.stopping } }

    /// Stops the monitor and every reader thread (each wakes through `SCardCancel`).
    func stop() {
        let (context, slots) = shared.withLock { shared in
            shared.stopping = true
            return (shared.context, Array(shared.slots.values))
        }
        context?.cancel()
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
                    publish(.backendDown, nil, .backend(name: "pcsc", reason: error.message))
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
                publish(.backendUp, nil, .backend(name: "pcsc", reason: nil))
                up = true
            }
            let reason = watchReaders(context)
            shared.withLock { $0.context = nil }
            removeAll()
            if let reason, !isStopping {
                logger.warning("pcscd went away; reconnecting", metadata: ["error": "\(reason)"])
                publish(.backendDown, nil, .backend(name: "pcsc", reason: reason.message))
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
                _ = try context.waitForChange([known], timeoutMilliseconds: PCSCReaderLoop.waitSliceMilliseconds)
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
        let (added, removed): ([ReaderSlot], [ReaderSlot]) = shared.withLock { shared in
            guard !shared.stopping else { return ([], []) }
            let gone = shared.slots.keys.filter { !wanted.contains($0) }.compactMap { shared.slots.removeValue(forKey: $0) }
            let new = wanted.filter { shared.slots[$0] == nil }.sorted().map { name in
                let slot = ReaderSlot(name: name)
                shared.slots[name] = slot
                return slot
            }
            return (new, gone)
        }
        for slot in removed {
            slot.stop()
            logger.info("Reader removed", metadata: ["reader.id": "\(slot.id)"])
            publish(.readerRemoved, slot.id, .reader(slot.info))
        }
        for slot in added {
            slot.setState(.empty)
            logger.info("Reader added", metadata: ["reader.id": "\(slot.id)"])
            publish(.readerAdded, slot.id, .reader(slot.info))
            let loop = makeLoop(slot)
            threads.spawn(name: "pcsc-reader") { loop.run() }
        }
    }

    private func removeAll() {
        let slots = shared.withLock { shared in
            defer { shared.slots.removeAll() }
            return Array(shared.slots.values)
        }
        for slot in slots.sorted(by: { $0.name < $1.name }) {
            slot.stop()
            var info = slot.info
            info.state = .unavailable
            publish(.readerRemoved, slot.id, .reader(info))
        }
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
