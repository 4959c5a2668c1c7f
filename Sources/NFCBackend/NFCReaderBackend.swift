public import ISO7816
public import Logging
public import PassTapCore
import Foundation
import Synchronization
import VAS

/// Readers driven through libnfc: PN532/PN533 boards, SCL3711 sticks, ACR122U units. PassTap
/// runs their polling loop itself, so it can send Apple's ECP frame (docs/vas-protocol.md §7).
///
/// Every libnfc call runs on a thread this backend owns: one thread per device, running the
/// shared ``ReaderLifecycle``, and a monitor thread that watches for devices coming and going
/// (serial paths, USB devices in sysfs). Nothing here blocks a Swift task's thread.
public final class NFCReaderBackend: ReaderBackend {
    /// The most devices one libnfc scan reports (an empty `[libnfc] devices` drives what it finds).
    public static let maximumScannedDevices = 16

    public let name = ReaderID.Backend.nfc

    private let monitor: NFCMonitor
    private let threads = ReaderThreads()
    private let events: EventSink
    private let logger: Logger

    /// Creates the backend; nothing runs until ``start()``.
    /// - Parameters:
    ///   - configuration: the whole configuration (`[libnfc]`, and `[vas]` for the ECP frame).
    ///   - tapHandler: called on a reader's thread for every card that arrives.
    ///   - transmitter: the chaining and caps used for `card.transmit`.
    ///   - events: where the readers' events go (the event hub).
    ///   - backoff: pauses before reopening a device that failed.
    ///   - sysfs, proc: where sysfs and procfs are (tests use fake trees).
    public init(
        configuration: Configuration, tapHandler: any TapHandler, transmitter: APDUTransmitter = APDUTransmitter(),
        events: EventSink, backoff: ReaderLifecycle.Backoff = .standard, sysfs: String = "/sys", proc: String = "/proc", logger: Logger
    ) {
        self.logger = logger
        self.events = events
        let settings = configuration.libnfc
        let polling = NFCPolling(
            interval: .milliseconds(settings.pollIntervalMilliseconds), rearm: .milliseconds(settings.rearmMilliseconds),
            ecpFrame: settings.pollingFrame(vas: configuration.vas)?.bytes,
            deselectsAfterRFFailure: Configuration.LibNFC.deselectsAfterRFFailure(vas: configuration.vas))
        let diagnosis = NFCDiagnosis(sysfs: sysfs, proc: proc)
        monitor = NFCMonitor(devices: settings.devices, sysfs: sysfs, threads: threads, events: events, logger: logger) { spec in
            let port = NFCReaderPort(spec: spec, polling: polling, diagnosis: diagnosis, logger: logger)
            let slot = ReaderSlot(id: spec.id, port: port)
            let lifecycle = ReaderLifecycle(
                slot: slot, port: port, tapHandler: tapHandler, transmitter: transmitter, events: events, backoff: backoff, logger: logger)
            return (port, lifecycle)
        }
    }

    /// Starts the monitor thread.
    public func start() {
        let monitor = self.monitor
        threads.spawn(name: "nfc-monitor") { monitor.run() }
    }

    public func shutdown(deadline: Duration = .milliseconds(1000)) async {
        monitor.stop()
        if !(await threads.allExited(within: deadline)) {
            logger.warning(
                "libnfc threads still busy at the shutdown deadline; leaving them",
                metadata: ["nfc.live_threads": "\(threads.liveCount)"])
        }
    }

    public func readers() -> [ReaderInfo] {
        monitor.slots.map(\.info).sorted { $0.id < $1.id }
    }

    public func transmit(_ apdu: CommandAPDU, raw: Bool, on reader: ReaderID) async throws(ReaderCommandError) -> ResponseAPDU {
        guard let slot = monitor.slot(for: reader) else { throw .unknownReader(reader) }
        return try await slot.transmit(apdu, raw: raw)
    }

    public func supervisedSlots() -> [ReaderSlot] { monitor.slots }

    public func restart(_ slot: ReaderSlot, because reason: String) -> Bool {
        // reader.removed goes out before the monitor may start the reader anew (reader.added).
        guard monitor.mayRestart(slot), slot.abandon(because: reason, events: events) else { return false }
        monitor.forget(slot)
        logger.warning("libnfc reader restarted", metadata: ["reader.id": "\(slot.id)"])
        return true
    }

    /// One APDU's own timeout (1.5 s, `NFCPolling.apduTimeoutMilliseconds`), and 1 s for a poll
    /// cycle's selection and the serial line.
    public var transportTimeout: Duration { .milliseconds(Int(NFCPolling.standardAPDUTimeoutMilliseconds)) + .seconds(1) }
}

/// The body of the libnfc monitor thread: first makes sure libnfc initialises (`backend.up`, or
/// `backend.down` with the reason and a retry with backoff), then finds the devices to drive and
/// gives each a thread of its own running the shared lifecycle; starts a device again (with
/// backoff) after it was lost.
///
/// Configured serial devices are there while their path exists. USB devices come from sysfs (by
/// vendor and product id), so they are found without libnfc's scan, which calls
/// `usb_set_configuration` on every device it matches and so disturbs readers already open.
final class NFCMonitor: Sendable {
    /// How often the device list is looked at again (a stat per serial device, a sysfs listing).
    static let period: Double = 0.5
    /// Pauses before a lost device's reader starts again: doubling from first to last, seconds.
    static let backoff: (first: Double, last: Double) = (0.25, 5)
    /// A reader that ran this long before it was lost starts its backoff from the first pause.
    static let healthySeconds: Double = 10

    private struct Shared {
        var slots: [ReaderID: ReaderSlot] = [:]
        /// The device each running reader was started for.
        var specs: [ReaderID: NFCDeviceSpec] = [:]
        /// Readers whose thread runs, with the slot it runs (a stopped reader's until its thread
        /// ends; an abandoned one's no longer).
        var running: [ReaderID: ObjectIdentifier] = [:]
        /// Readers restarted while a thread of theirs was stuck, with that thread's slot, until it
        /// ends.
        var abandoned: [ReaderID: ObjectIdentifier] = [:]
        var retry: [ReaderID: (after: ContinuousClock.Instant, delay: Double)] = [:]
        var stopping = false
        var missingLogged: Set<String> = []
    }

    private let shared = Mutex(Shared())
    private let wake = NSCondition()
    private let devices: [String]
    private let sysfs: String
    private let threads: ReaderThreads
    private let events: EventSink
    private let logger: Logger
    private let makeLifecycle: @Sendable (NFCDeviceSpec) -> (NFCReaderPort, ReaderLifecycle)

    init(
        devices: [String], sysfs: String, threads: ReaderThreads, events: EventSink, logger: Logger,
        makeLifecycle: @escaping @Sendable (NFCDeviceSpec) -> (NFCReaderPort, ReaderLifecycle)
    ) {
        self.devices = devices
        self.sysfs = sysfs
        self.threads = threads
        self.events = events
        self.logger = logger
        self.makeLifecycle = makeLifecycle
    }

    var slots: [ReaderSlot] { shared.withLock { Array($0.slots.values) } }

    func slot(for id: ReaderID) -> ReaderSlot? {
        guard id.backend == .nfc else { return nil }
        return shared.withLock { $0.slots[id] }
    }

    private var isStopping: Bool { shared.withLock { $0.stopping } }

    /// Stops the monitor and every reader. Never blocks.
    func stop() {
        let slots = shared.withLock { shared in
            shared.stopping = true
            return Array(shared.slots.values)
        }
        slots.forEach { $0.stop() }
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    func run() {
        guard libraryInitialises() else {
            logger.debug("libnfc monitor thread ended before libnfc initialised")
            return
        }
        // An empty list means the devices libnfc's scan finds: scanned once, before any device is
        // open. Its USB finds are followed through sysfs from then on (a rescan would reconfigure
        // readers already open); the others (devices named in /etc/nfc, LIBNFC_DEVICE) are kept.
        let scanned = devices.isEmpty ? NFCDevice.scan().filter { !NFCDeviceSpec.isUSB($0) } : []
        if devices.isEmpty {
            logger.info(
                "libnfc: no [libnfc] devices: driving the USB readers sysfs shows and the devices libnfc's scan found",
                metadata: ["nfc.scanned": "\(scanned)"])
        }
        while !isStopping {
            reconcile(present(scanned: scanned))
            sleep(seconds: Self.period)
        }
        logger.debug("libnfc monitor thread ended")
    }

    /// Waits until libnfc initialises (``NFCDevice/checkLibrary()``) and publishes `backend.up`,
    /// with or without a device; until then `backend.down` with the reason, once, and retries
    /// with the readers' backoff. False when the backend stops first.
    private func libraryInitialises() -> Bool {
        let name = ReaderID.Backend.nfc.rawValue
        var delay = Self.backoff.first
        var reportedDown = false
        while !isStopping {
            do {
                try NFCDevice.checkLibrary()
                logger.info("libnfc is initialised")
                events.publish(.backendUp, nil, .backend(name: name, reason: nil))
                return true
            } catch {
                if !reportedDown {
                    logger.warning("libnfc cannot be initialised; retrying with backoff", metadata: ["error": "\(error)"])
                    events.publish(.backendDown, nil, .backend(name: name, reason: "libnfc \(error.function) failed: \(error.message)"))
                    reportedDown = true
                }
                sleep(seconds: delay)
                delay = min(delay * 2, Self.backoff.last)
            }
        }
        return false
    }

    /// The devices there now.
    private func present(scanned: [String]) -> [NFCDeviceSpec] {
        var specs: [NFCDeviceSpec] = []
        let usb = NFCUSB.readers(sysfs: sysfs)
        if devices.isEmpty {
            specs = usb.compactMap(NFCDeviceSpec.init(usb:))
        }
        for connstring in devices + scanned {
            if NFCDeviceSpec.isUSB(connstring) {
                specs += usb.filter { device in
                    guard let own = device.connstring else { return false }
                    // `pn53x_usb` names every such device; `pn53x_usb:001:005` one of them.
                    return own == connstring || own.hasPrefix(connstring + ":")
                }.compactMap(NFCDeviceSpec.init(usb:))
            } else if let path = NFCDeviceSpec.serialPath(of: connstring) {
                if access(path, F_OK) == 0 {
                    specs.append(NFCDeviceSpec(serial: connstring))
                    _ = shared.withLock { $0.missingLogged.remove(connstring) }
                } else if shared.withLock({ $0.missingLogged.insert(connstring).inserted }) {
                    logger.warning("libnfc device not there; waiting for it", metadata: ["nfc.connstring": "\(connstring)", "path": "\(path)"])
                }
            } else {
                specs.append(NFCDeviceSpec(serial: connstring))
            }
        }
        return specs
    }

    /// Stops the readers whose device left (its path is gone, its USB port holds another device
    /// or none), and starts a reader for each device there that has none (once its backoff has
    /// passed). A new reader's thread first opens the device: only one that answers, or that is
    /// there but held elsewhere (so `readers.list` can say by what), is announced.
    private func reconcile(_ specs: [NFCDeviceSpec]) {
        let now = ContinuousClock.now
        let wanted = Dictionary(specs.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let (left, starting): ([ReaderSlot], [(NFCDeviceSpec, NFCReaderPort, ReaderLifecycle)]) = shared.withLock { shared in
            guard !shared.stopping else { return ([], []) }
            let left = shared.slots.filter { wanted[$0.key] != shared.specs[$0.key] }.map(\.value)
            for slot in left { shared.slots[slot.id] = nil }
            var starting: [(NFCDeviceSpec, NFCReaderPort, ReaderLifecycle)] = []
            for spec in wanted.values.sorted(by: { $0.id < $1.id }) where shared.running[spec.id] == nil {
                if let retry = shared.retry[spec.id], retry.after > now { continue }
                let (port, lifecycle) = makeLifecycle(spec)
                shared.running[spec.id] = ObjectIdentifier(lifecycle.slot)
                shared.specs[spec.id] = spec
                starting.append((spec, port, lifecycle))
            }
            return (left, starting)
        }
        for slot in left {
            logger.info("libnfc reader removed", metadata: ["reader.id": "\(slot.id)"])
            slot.stop(because: "the reader was removed")
        }
        for (spec, port, lifecycle) in starting {
            threads.spawn(name: "nfc-reader") { [self] in
                let started = ContinuousClock.now
                if let fault = port.probe(), fault.kind == .gone {
                    logger.debug("libnfc device not answering yet", metadata: ["reader.id": "\(spec.id)", "reason": "\(fault.reason)"])
                } else if register(lifecycle.slot) {
                    logger.info("libnfc reader starting", metadata: ["reader.id": "\(spec.id)", "nfc.connstring": "\(spec.connstring)"])
                    lifecycle.run()
                }
                ended(lifecycle.slot, ranFor: started.duration(to: .now))
            }
        }
    }

    /// Makes a probed reader's slot visible (`readers.list`, `card.transmit`); false when the
    /// backend is stopping.
    private func register(_ slot: ReaderSlot) -> Bool {
        shared.withLock { shared in
            guard !shared.stopping else { return false }
            shared.slots[slot.id] = slot
            return true
        }
    }

    /// Whether `slot` is its reader's current one, with no earlier abandoned thread still running.
    func mayRestart(_ slot: ReaderSlot) -> Bool {
        shared.withLock { shared in
            !shared.stopping && shared.running[slot.id] == ObjectIdentifier(slot) && shared.abandoned[slot.id] == nil
        }
    }

    /// Forgets an abandoned reader, so the next look at the devices (within ``period``) starts
    /// it anew.
    func forget(_ slot: ReaderSlot) {
        shared.withLock { shared in
            guard shared.running[slot.id] == ObjectIdentifier(slot) else { return }
            shared.slots[slot.id] = nil
            shared.specs[slot.id] = nil
            shared.running[slot.id] = nil
            shared.abandoned[slot.id] = ObjectIdentifier(slot)
        }
    }

    /// A reader's thread ended (its device was lost or left, or the backend stops): forget it, so
    /// the device starts anew once it is back, after a backoff.
    private func ended(_ slot: ReaderSlot, ranFor: Duration) {
        let id = slot.id
        shared.withLock { shared in
            // An abandoned thread that came back: the reader runs on a new one now.
            if shared.abandoned[id] == ObjectIdentifier(slot) { shared.abandoned[id] = nil }
            guard shared.running[id] == ObjectIdentifier(slot) else { return }
            shared.slots[id] = nil
            shared.specs[id] = nil
            shared.running[id] = nil
            let previous = shared.retry[id]?.delay ?? 0
            let delay = ranFor.seconds >= Self.healthySeconds || previous == 0 ? Self.backoff.first : min(previous * 2, Self.backoff.last)
            shared.retry[id] = (ContinuousClock.now + .milliseconds(Int(delay * 1000)), delay)
        }
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    /// Sleeps, but returns at once when ``stop()`` is called or a reader ends.
    private func sleep(seconds: Double) {
        wake.lock()
        defer { wake.unlock() }
        if !isStopping {
            _ = wake.wait(until: Date(timeIntervalSinceNow: seconds))
        }
    }
}
