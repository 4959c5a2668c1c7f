import Foundation
import Logging
import PassTapCore
import Synchronization

/// How the libnfc backend finds its devices: first makes sure libnfc initialises (`backend.up`, or
/// `backend.down` with the reason and a retry with backoff), then every ``period`` hands the
/// ``ReaderRegistry`` the devices there now.
///
/// Configured serial devices are there while their path exists. USB devices come from sysfs (by
/// vendor and product id), so they are found without libnfc's scan, which calls
/// `usb_set_configuration` on every device it matches and so disturbs readers already open.
final class NFCDiscovery: ReaderDiscovery {
    /// How often the device list is looked at again (a stat per serial device, a sysfs listing).
    static let period: Duration = .milliseconds(500)
    /// Pauses between attempts to initialise libnfc: doubling from first to last, seconds.
    static let backoff: (first: Double, last: Double) = (0.25, 5)

    private let devices: [String]
    private let sysfs: String
    private let logger: Logger
    private let makePort: @Sendable (NFCDeviceSpec) -> NFCReaderPort
    /// Configured serial devices whose absence was logged (once, until they are there).
    private let missingLogged = Mutex<Set<String>>([])

    /// Finds `devices` (`[libnfc] devices`; empty: the USB readers sysfs shows and what libnfc's
    /// scan finds) under `sysfs`; each run of a reader's thread opens a port `makePort` makes.
    init(devices: [String], sysfs: String, logger: Logger, makePort: @escaping @Sendable (NFCDeviceSpec) -> NFCReaderPort) {
        self.devices = devices
        self.sysfs = sysfs
        self.logger = logger
        self.makePort = makePort
    }

    func run(in registry: ReaderRegistry) {
        guard libraryInitialises(registry) else {
            logger.debug("libnfc discovery ended before libnfc initialised")
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
        while !registry.isStopping {
            registry.reconcile(present(scanned: scanned).map(entry(for:)))
            registry.pause(for: Self.period)
        }
    }

    /// The registry's entry for a device: its id, and its connection string as its address (a
    /// USB reader replugged into the same port has a new device number).
    private func entry(for spec: NFCDeviceSpec) -> ReaderEntry {
        ReaderEntry(id: spec.id, address: spec.connstring) { [makePort] in makePort(spec) }
    }

    /// Waits until libnfc initialises (``NFCDevice/checkLibrary()``) and publishes `backend.up`,
    /// with or without a device; until then `backend.down` with the reason, once, and retries
    /// with backoff. False when the registry stops first.
    private func libraryInitialises(_ registry: ReaderRegistry) -> Bool {
        var delay = Self.backoff.first
        while !registry.isStopping {
            do {
                try NFCDevice.checkLibrary()
                logger.info("libnfc is initialised")
                registry.backendUp()
                return true
            } catch {
                if registry.backendDown(reason: "libnfc \(error.function) failed: \(error.message)") {
                    logger.warning("libnfc cannot be initialised; retrying with backoff", metadata: ["error": "\(error)"])
                }
                registry.pause(for: .seconds(delay))
                delay = min(delay * 2, Self.backoff.last)
            }
        }
        return false
    }

    /// The devices there now: configured serial paths that exist, configured USB drivers' devices
    /// in sysfs, and with no `[libnfc] devices` every supported USB reader and the `scanned` ones.
    func present(scanned: [String]) -> [NFCDeviceSpec] {
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
                    _ = missingLogged.withLock { $0.remove(connstring) }
                } else if missingLogged.withLock({ $0.insert(connstring).inserted }) {
                    logger.warning("libnfc device not there; waiting for it", metadata: ["nfc.connstring": "\(connstring)", "path": "\(path)"])
                }
            } else {
                specs.append(NFCDeviceSpec(serial: connstring))
            }
        }
        return specs
    }
}
