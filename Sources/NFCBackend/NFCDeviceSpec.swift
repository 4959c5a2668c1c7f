import Foundation
import PassTapCore

/// One device the backend drives: the connection string libnfc opens and the reader id PassTap
/// publishes, which never changes across a replug and is never a list position.
struct NFCDeviceSpec: Hashable, Sendable {
    /// What `nfc_open` is given.
    var connstring: String
    /// `nfc:pn532_uart:/dev/serial/by-id/…` for a serial device (its configured path, baud rate
    /// left out), `nfc:pn53x_usb:1-1.2` for a USB device (its sysfs port path: a USB connection
    /// string's device number changes on every replug).
    var id: ReaderID
    /// The USB device it is, or `nil` for a serial one.
    var usb: NFCUSB.Device?

    /// A serial device from its configured connection string.
    init(serial connstring: String) {
        self.connstring = connstring
        let parts = connstring.split(separator: ":", omittingEmptySubsequences: false)
        let name = parts.count >= 2 ? "\(parts[0]):\(parts[1])" : connstring
        id = ReaderID(backend: .nfc, name: name)
        usb = nil
    }

    /// A USB device as sysfs shows it.
    init?(usb device: NFCUSB.Device) {
        guard let connstring = device.connstring, let driver = device.libnfcDriver else { return nil }
        self.connstring = connstring
        id = ReaderID(backend: .nfc, name: "\(driver):\(device.port)")
        usb = device
    }

    /// Whether the device is still there: its path exists (serial), or its USB port still holds
    /// the same device (a replug gives it a new device number, and so a new connection string).
    func isPresent(sysfs: String) -> Bool {
        if let usb {
            return NFCUSB.devices(sysfs: sysfs).contains { $0.port == usb.port && $0.bus == usb.bus && $0.number == usb.number }
        }
        guard let path = Self.serialPath(of: connstring) else { return true }
        return access(path, F_OK) == 0
    }

    /// The device path of a serial connection string (`pn532_uart:/dev/ttyUSB0:115200` →
    /// `/dev/ttyUSB0`), `nil` for any other.
    static func serialPath(of connstring: String) -> String? {
        let parts = connstring.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[1].hasPrefix("/") else { return nil }
        return String(parts[1])
    }

    /// Whether a configured connection string names a USB driver (`pn53x_usb`, `acr122_usb`,
    /// optionally with `:BUS:DEVICE`), which sysfs resolves to devices.
    static func isUSB(_ connstring: String) -> Bool {
        let driver = connstring.split(separator: ":").first.map(String.init) ?? ""
        return NFCUSB.supported.contains { $0.driver == driver }
    }
}
