public import ISO7816
public import Logging
public import PassTapCore
import VAS
import VASSettings

/// Readers driven through libnfc: PN532/PN533 boards, SCL3711 sticks, ACR122U units. PassTap
/// runs their polling loop itself, so it can send Apple's ECP frame (docs/vas-protocol.md §7).
///
/// Every libnfc call runs on a thread this backend owns: one thread per device, running the
/// shared ``ReaderLifecycle`` (the ``ReaderRegistry`` starts and stops them), and the discovery
/// thread (`nfc-monitor`, ``NFCDiscovery``) that watches for devices coming and going (serial
/// paths, USB devices in sysfs). Nothing here blocks a Swift task's thread.
public final class NFCReaderBackend: ReaderBackend {
    /// The most devices one libnfc scan reports (an empty `[libnfc] devices` drives what it finds).
    public static let maximumScannedDevices = 16

    public let name = ReaderID.Backend.nfc

    private let readerTable: ReaderRegistry
    private let discovery: NFCDiscovery

    /// Creates the backend; nothing runs until ``start()``.
    /// - Parameters:
    ///   - configuration: the whole configuration (`[libnfc]`, and `[vas]` for the ECP frame).
    ///   - tapHandler: called on a reader's thread for every card that arrives.
    ///   - transmitter: the chaining and caps used for `card.transmit`.
    ///   - events: where the readers' events go (the event hub).
    ///   - backoff: pauses before reopening a device that failed.
    ///   - sysfs, proc: where sysfs and procfs are (tests use fake trees).
    public convenience init(
        configuration: Configuration, tapHandler: any TapHandler, transmitter: APDUTransmitter = APDUTransmitter(),
        events: EventSink, backoff: ReaderLifecycle.Backoff = .standard, sysfs: String = "/sys", proc: String = "/proc", logger: Logger
    ) {
        self.init(
            configuration: configuration, tapHandler: tapHandler, transmitter: transmitter, events: events, backoff: backoff,
            sysfs: sysfs, proc: proc, apduTimeoutMilliseconds: NFCPolling.standardAPDUTimeoutMilliseconds, logger: logger)
    }

    /// The same, with one APDU's own timeout chosen: a test that must stop the backend while an
    /// exchange is in flight makes it long, so that the stop's abort ends the exchange and the
    /// timeout cannot, however loaded the machine.
    init(
        configuration: Configuration, tapHandler: any TapHandler, transmitter: APDUTransmitter = APDUTransmitter(),
        events: EventSink, backoff: ReaderLifecycle.Backoff = .standard, sysfs: String = "/sys", proc: String = "/proc",
        apduTimeoutMilliseconds: Int32, logger: Logger
    ) {
        let settings = configuration.libnfc
        let polling = NFCPolling(
            interval: .milliseconds(settings.pollIntervalMilliseconds), rearm: .milliseconds(settings.rearmMilliseconds),
            ecpFrame: settings.pollingFrame(vas: configuration.vas)?.bytes,
            deselectsAfterRFFailure: Configuration.LibNFC.deselectsAfterRFFailure(vas: configuration.vas),
            apduTimeoutMilliseconds: apduTimeoutMilliseconds)
        let diagnosis = NFCDiagnosis(sysfs: sysfs, proc: proc)
        readerTable = ReaderRegistry(
            backend: .nfc, transportTimeout: Self.transportTimeout(apduTimeoutMilliseconds: apduTimeoutMilliseconds),
            tapHandler: tapHandler, transmitter: transmitter, events: events,
            backoff: backoff, logger: logger)
        discovery = NFCDiscovery(devices: settings.devices, sysfs: sysfs, logger: logger) { spec in
            NFCReaderPort(spec: spec, polling: polling, diagnosis: diagnosis, logger: logger)
        }
    }

    /// Starts the discovery thread.
    public func start() {
        readerTable.start(discovery)
    }

    public func shutdown(deadline: Duration = .milliseconds(1000)) async {
        await readerTable.shutdown(deadline: deadline)
    }

    public var registry: ReaderRegistry? { readerTable }

    public func readers() -> [ReaderInfo] { readerTable.readers() }

    public func transmit(_ apdu: CommandAPDU, raw: Bool, on reader: ReaderID) async throws(ReaderCommandError) -> ResponseAPDU {
        try await readerTable.transmit(apdu, raw: raw, on: reader)
    }

    /// One APDU's own timeout (1.5 s, `NFCPolling.apduTimeoutMilliseconds`), and 1 s for a poll
    /// cycle's selection and the serial line.
    public static let transportTimeout = transportTimeout(apduTimeoutMilliseconds: NFCPolling.standardAPDUTimeoutMilliseconds)

    static func transportTimeout(apduTimeoutMilliseconds: Int32) -> Duration {
        .milliseconds(Int(apduTimeoutMilliseconds)) + .seconds(1)
    }
}
