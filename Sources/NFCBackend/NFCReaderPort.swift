import Foundation
import Logging
import PassTapCore
import Synchronization

/// How a libnfc reader polls: the cycle's period, the ECP frame, and how long a target must be
/// silent before the next session can start.
struct NFCPolling: Sendable, Hashable {
    /// `poll_interval_ms`: a cycle (ECP, then one select) starts this often.
    var interval: Duration
    /// `rearm_ms`: no target may have answered for this long before a new session starts.
    var rearm: Duration
    /// The ECP frame sent at the start of every cycle (without CRC: the chip appends CRC_A).
    var ecpFrame: [UInt8]?
    /// Whether a session that failed for RF reasons still ends with S(DESELECT).
    var deselectsAfterRFFailure: Bool
    /// How long one APDU may take before it is a `timeout`.
    var apduTimeoutMilliseconds: Int32 = standardAPDUTimeoutMilliseconds
    /// 1.5 s.
    static let standardAPDUTimeoutMilliseconds: Int32 = 1500
    /// How long the host waits for the chip's answer to the ECP frame, which no target answers
    /// (the chip reports its own timeout after ``chipTimeoutMilliseconds``; this bounds a chip that
    /// stays silent). libnfc's USB drivers read in 200 ms steps and give up before reading at all
    /// when the timeout is 200 ms or less, leaving the chip's answer unread: see
    /// ``NFCReaderPort/ecpTimeoutMilliseconds``.
    var ecpTimeoutMilliseconds: Int32 = 50
    /// How long the field stays off when PassTap drops it to end a tap or reset a resting phone.
    var fieldOffMilliseconds = 10
    /// The chip's own RF timeout for raw frames (`NP_TIMEOUT_COM`): a PN53x gives up on the
    /// unanswered ECP frame after about this long, instead of its default 51 ms.
    var chipTimeoutMilliseconds: Int32 = 5
}

/// One libnfc device as the shared reader lifecycle opens it: `open()` on the reader's thread
/// opens the device (or takes the one ``probe()`` opened to see it answer before the reader was
/// announced); `stop()` also aborts a libnfc call in progress.
final class NFCReaderPort: ReaderPort {
    let spec: NFCDeviceSpec
    let polling: NFCPolling
    /// The pause between poll cycles: a request ends it once, a stop for good.
    let signal = StoppableWait()
    private let diagnosis: NFCDiagnosis
    private let logger: Logger
    /// The device the reader's thread has open, for ``stop()``'s abort.
    private let current = Mutex<NFCDevice?>(nil)
    /// The device ``probe()`` opened, for the first ``open()``.
    private let probed = Mutex<NFCDevice?>(nil)

    init(spec: NFCDeviceSpec, polling: NFCPolling, diagnosis: NFCDiagnosis = NFCDiagnosis(), logger: Logger) {
        self.spec = spec
        self.polling = polling
        self.diagnosis = diagnosis
        self.logger = logger
    }

    /// The ECP answer's timeout for this device's driver: libnfc's USB drivers take 200 ms off
    /// before their first read, so they need more than that to read the chip's answer at all.
    var ecpTimeoutMilliseconds: Int32 {
        spec.usb == nil ? polling.ecpTimeoutMilliseconds : 200 + polling.ecpTimeoutMilliseconds
    }

    /// Whether the device is still there (its path, its USB port and device number).
    var deviceIsThere: Bool { spec.isPresent(sysfs: diagnosis.sysfs) }

    /// Opens the device before the reader is announced, on the reader's thread: `nil` when it
    /// answered (kept for ``open()``), else why not. A device that is gone is not announced.
    func probe() -> ReaderFault? {
        do {
            let device = try openDevice()
            probed.withLock { $0 = device }
            return nil
        } catch {
            return error
        }
    }

    func open() throws(ReaderFault) -> any ReaderDriver {
        guard !signal.isStopped else { throw ReaderFault(.gone, "stopping") }
        let device: NFCDevice
        if let ready = probed.withLock({ $0.take() }) {
            device = ready
        } else {
            device = try openDevice()
        }
        current.withLock { $0 = device }
        return NFCReaderDriver(port: self, device: device, logger: logger)
    }

    private func openDevice() throws(ReaderFault) -> NFCDevice {
        let device: NFCDevice
        do {
            device = try NFCDevice(connstring: spec.connstring)
            try device.setRawFrameTimeout(milliseconds: polling.chipTimeoutMilliseconds)
        } catch where error.code == .openFailed {
            guard deviceIsThere else { throw ReaderFault(.gone, "the device is gone") }
            throw diagnosis.openFailure(connstring: spec.connstring, usb: spec.usb)
        } catch {
            throw error.readerFault(deviceLost: error.mayMeanDeviceLost && !deviceIsThere)
        }
        logger.info("libnfc device open", metadata: ["reader.id": "\(spec.id)", "nfc.device": "\(device.name)"])
        return device
    }

    /// The driver let go of its device.
    func detach() {
        current.withLock { $0 = nil }
    }

    func wake() { signal.signal() }

    /// How often a stop aborts the device's card exchange while it still runs, in microseconds.
    static let abortRetryMicroseconds: useconds_t = 50_000
    /// How many times at most.
    static let abortRetryTimes = 20

    /// Ends the reader's wait for good and, on a short-lived `nfc-abort` thread, aborts the card
    /// exchange in progress, if there is one: again every 50 ms while it still runs (at most 1 s),
    /// since pn532_uart's abort wakes only a receive already waiting and one that lands while the
    /// command is still being sent is lost. Every other call is short, and the driver checks for
    /// the stop before each poll cycle and exchange.
    func stop() {
        signal.stop()
        guard let device = current.withLock({ $0 }) else { return }
        let thread = Thread {
            // Set from the thread itself: it names the system thread.
            ThreadName.set("nfc-abort")
            for _ in 0..<NFCReaderPort.abortRetryTimes {
                guard device.abortExchange() else { return }
                usleep(NFCReaderPort.abortRetryMicroseconds)
            }
        }
        thread.start()
    }
}
