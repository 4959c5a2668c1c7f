import Foundation
import PassTapCore

/// Why `nfc_open` returned no device, which libnfc never says: read from sysfs, `/proc` and the
/// device node, in words that tell an operator what to do.
struct NFCDiagnosis {
    var sysfs = "/sys"
    var proc = "/proc"

    /// The fault for a device that would not open.
    func openFailure(connstring: String, usb: NFCUSB.Device?) -> ReaderFault {
        if let usb { return usbFailure(usb, connstring: connstring) }
        if let path = NFCDeviceSpec.serialPath(of: connstring) { return serialFailure(path: path, connstring: connstring) }
        return ReaderFault(.failed, "libnfc could not open \(connstring) (it gives no reason; LIBNFC_LOG_LEVEL=3 shows its trace)")
    }

    private func usbFailure(_ device: NFCUSB.Device, connstring: String) -> ReaderFault {
        let driver = NFCUSB.interfaceDriver(of: device, sysfs: sysfs)
        let holders = NFCUSB.holders(of: device.devicePath, proc: proc)
        let heldBy = holders.isEmpty ? "" : " (held by \(holders.joined(separator: ", ")))"
        switch driver {
        case "pn533_usb", "pn533":
            return ReaderFault(.inUse, "the kernel's \(driver!) driver owns USB device \(device.port); blacklist pn533_usb, pn533 and nfc (udev/passtapd-blacklist.conf) and unplug the reader, or run `rmmod pn533_usb pn533 nfc`")
        case "usbfs":
            return ReaderFault(.inUse, "another process holds USB device \(device.port) through libusb\(heldBy); stop it, or, for a CCID reader such as the ACR122U, let pcscd own it and use PassTap's PC/SC backend ([pcsc]) instead of [libnfc]")
        case let other?:
            return ReaderFault(.inUse, "the kernel's \(other) driver owns USB device \(device.port); unbind it or blacklist that module")
        case nil:
            if access(device.devicePath, R_OK | W_OK) != 0, errno == EACCES {
                return ReaderFault(.failed, "no permission on \(device.devicePath) (USB device \(device.port)); install udev/70-passtapd-nfc.rules and add the daemon's user to group passtap-nfc")
            }
            return ReaderFault(.failed, "libnfc could not open USB device \(device.port) (\(connstring))\(heldBy); LIBNFC_LOG_LEVEL=3 shows libnfc's trace")
        }
    }

    private func serialFailure(path: String, connstring: String) -> ReaderFault {
        if access(path, F_OK) != 0 {
            return ReaderFault(.gone, "\(path) does not exist (unplugged?)")
        }
        if access(path, R_OK | W_OK) != 0, errno == EACCES {
            return ReaderFault(.failed, "no permission on \(path); add the daemon's user to group dialout (or the group a site udev rule gives the device)")
        }
        let resolved = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map { target in
            target.hasPrefix("/") ? target : ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(target)
        } ?? path
        let holders = Set(NFCUSB.holders(of: resolved, proc: proc) + NFCUSB.holders(of: path, proc: proc)).sorted()
        if !holders.isEmpty {
            return ReaderFault(.inUse, "\(path) is open in another process (\(holders.joined(separator: ", "))); a serial PN532 takes one client at a time: stop the other one")
        }
        return ReaderFault(.failed, "no PN532 answered on \(path) (\(connstring)): check the wiring, the board's UART mode switch and the baud rate; LIBNFC_LOG_LEVEL=3 shows libnfc's trace")
    }
}
