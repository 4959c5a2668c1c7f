import Foundation

/// The USB readers libnfc 1.8 drives, and what sysfs says about them: where they are plugged
/// (a name that survives a replug, unlike the device number in a USB connection string) and
/// which driver holds them.
enum NFCUSB {
    /// A libnfc USB driver and the vendor:product ids it claims (libnfc-1.8.0
    /// `drivers/pn53x_usb.c` `pn53x_usb_supported_devices`, `drivers/acr122_usb.c`
    /// `acr122_usb_supported_devices`). `udev/70-passtapd-nfc.rules` covers the same ids (a test
    /// checks both lists agree).
    static let supported: [(driver: String, vendor: UInt16, product: UInt16, model: String)] = [
        ("pn53x_usb", 0x04CC, 0x0531, "Philips / PN531"),
        ("pn53x_usb", 0x04CC, 0x2533, "NXP / PN533"),
        ("pn53x_usb", 0x04E6, 0x5591, "SCM Micro / SCL3711-NFC&RW"),
        ("pn53x_usb", 0x04E6, 0x5594, "SCM Micro / SCL3712-NFC&RW"),
        ("pn53x_usb", 0x054C, 0x0193, "Sony / PN531"),
        ("pn53x_usb", 0x1FD3, 0x0608, "ASK / LoGO"),
        ("pn53x_usb", 0x054C, 0x02E1, "Sony / FeliCa S360 [PaSoRi]"),
        ("acr122_usb", 0x072F, 0x2200, "ACS ACR122"),
        ("acr122_usb", 0x072F, 0x90CC, "Touchatag"),
        ("acr122_usb", 0x072F, 0x2214, "ACS ACR1222"),
    ]

    /// A USB device as sysfs lists it.
    struct Device: Hashable {
        /// The sysfs port path (`1-1.2`): where it is plugged, stable across a replug.
        var port: String
        var bus: Int
        var number: Int
        var vendor: UInt16
        var product: UInt16

        /// The libnfc driver that drives it, if any.
        var libnfcDriver: String? {
            NFCUSB.supported.first { $0.vendor == vendor && $0.product == product }?.driver
        }

        /// The connection string libnfc's scan would give it (`pn53x_usb:001:005`): bus and
        /// device number as libusb-0.1 names their folders.
        var connstring: String? {
            libnfcDriver.map { "\($0):\(Self.threeDigits(bus)):\(Self.threeDigits(number))" }
        }

        /// `/dev/bus/usb/BBB/DDD`.
        var devicePath: String { "/dev/bus/usb/\(Self.threeDigits(bus))/\(Self.threeDigits(number))" }

        private static func threeDigits(_ value: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        }
    }

    /// Every USB device under `sysfs/bus/usb/devices` (interfaces and hubs' roots included only
    /// when they have ids).
    static func devices(sysfs: String = "/sys") -> [Device] {
        let folder = sysfs + "/bus/usb/devices"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.sorted().compactMap { name in
            // Interfaces are `1-1.2:1.0`; devices have no colon.
            guard !name.contains(":") else { return nil }
            let path = folder + "/" + name
            guard let vendor = read(path + "/idVendor").flatMap({ UInt16($0, radix: 16) }),
                  let product = read(path + "/idProduct").flatMap({ UInt16($0, radix: 16) }),
                  let bus = read(path + "/busnum").flatMap({ Int($0) }),
                  let number = read(path + "/devnum").flatMap({ Int($0) })
            else { return nil }
            return Device(port: name, bus: bus, number: number, vendor: vendor, product: product)
        }
    }

    /// The readers libnfc drives, as sysfs lists them now.
    static func readers(sysfs: String = "/sys") -> [Device] {
        devices(sysfs: sysfs).filter { $0.libnfcDriver != nil }
    }

    /// The device a USB connection string names (`pn53x_usb:001:005`), if it is plugged in.
    static func device(forConnstring connstring: String, sysfs: String = "/sys") -> Device? {
        let parts = connstring.split(separator: ":")
        guard parts.count == 3, let bus = Int(parts[1]), let number = Int(parts[2]) else { return nil }
        return devices(sysfs: sysfs).first { $0.bus == bus && $0.number == number }
    }

    /// The kernel driver bound to the device's first interface (`pn533_usb`, `usbfs` for a
    /// process using libusb, `usbhid`...), or `nil` when none is.
    static func interfaceDriver(of device: Device, sysfs: String = "/sys") -> String? {
        let link = sysfs + "/bus/usb/devices/\(device.port):1.0/driver"
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) else { return nil }
        return (target as NSString).lastPathComponent
    }

    /// The processes that have `path` open (`/proc/PID/fd/*` links), as `name (pid N)`.
    static func holders(of path: String, proc: String = "/proc", excluding ownPID: Int32 = getpid()) -> [String] {
        guard let pids = try? FileManager.default.contentsOfDirectory(atPath: proc) else { return [] }
        var found: [String] = []
        for pid in pids.compactMap(Int32.init).sorted() where pid != ownPID {
            let fdFolder = "\(proc)/\(pid)/fd"
            guard let fds = try? FileManager.default.contentsOfDirectory(atPath: fdFolder) else { continue }
            let holds = fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: fdFolder + "/" + $0)) == path }
            if holds {
                let name = read("\(proc)/\(pid)/comm") ?? "?"
                found.append("\(name) (pid \(pid))")
            }
        }
        return found
    }

    static func read(_ path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
