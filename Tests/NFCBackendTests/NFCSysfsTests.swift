import Foundation
import Logging
import PassTapCore
import Testing

@testable import NFCBackend

/// Naming and diagnosis from sysfs and procfs, against fake trees: a reader's id comes from where
/// it is plugged, and a device libnfc cannot open is explained by which driver holds it.
@Suite(.timeLimit(.minutes(1))) struct NFCSysfsTests {
    /// A fake `/sys` and `/proc`.
    final class Tree {
        let root: String
        var sysfs: String { root + "/sys" }
        var proc: String { root + "/proc" }

        init() throws {
            root = NSTemporaryDirectory() + "passtap-sysfs-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: root + "/sys/bus/usb/devices", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: root + "/proc", withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        func usb(_ port: String, vendor: String, product: String, bus: Int, number: Int, driver: String? = nil) throws {
            let folder = sysfs + "/bus/usb/devices/" + port
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, value) in [("idVendor", vendor), ("idProduct", product), ("busnum", "\(bus)"), ("devnum", "\(number)")] {
                try (value + "\n").write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
            }
            let interface = sysfs + "/bus/usb/devices/" + port + ":1.0"
            try FileManager.default.createDirectory(atPath: interface, withIntermediateDirectories: true)
            if let driver {
                try FileManager.default.createSymbolicLink(atPath: interface + "/driver", withDestinationPath: "../../../../bus/usb/drivers/" + driver)
            }
        }

        func process(_ pid: Int, name: String, holds path: String) throws {
            let folder = proc + "/\(pid)"
            try FileManager.default.createDirectory(atPath: folder + "/fd", withIntermediateDirectories: true)
            try (name + "\n").write(toFile: folder + "/comm", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: folder + "/fd/7", withDestinationPath: path)
        }
    }

    @Test func usbReadersAreNamedByTheirPortNotTheirDeviceNumber() throws {
        let tree = try Tree()
        try tree.usb("1-1.2", vendor: "04e6", product: "5591", bus: 1, number: 7)
        try tree.usb("2-1", vendor: "072f", product: "2200", bus: 2, number: 3)
        try tree.usb("1-1.3", vendor: "046d", product: "c31c", bus: 1, number: 9)  // a keyboard
        let readers = NFCUSB.readers(sysfs: tree.sysfs).compactMap(NFCDeviceSpec.init(usb:))
        #expect(readers.map(\.id.rawValue) == ["nfc:pn53x_usb:1-1.2", "nfc:acr122_usb:2-1"])
        #expect(readers.map(\.connstring) == ["pn53x_usb:001:007", "acr122_usb:002:003"])

        // Replugged into the same port: a new device number, the same id.
        try FileManager.default.removeItem(atPath: tree.sysfs + "/bus/usb/devices/1-1.2")
        try FileManager.default.removeItem(atPath: tree.sysfs + "/bus/usb/devices/1-1.2:1.0")
        try tree.usb("1-1.2", vendor: "04e6", product: "5591", bus: 1, number: 12)
        let again = NFCUSB.readers(sysfs: tree.sysfs).compactMap(NFCDeviceSpec.init(usb:))
        #expect(again.first?.id.rawValue == "nfc:pn53x_usb:1-1.2")
        #expect(again.first?.connstring == "pn53x_usb:001:012")
        #expect(NFCUSB.device(forConnstring: "pn53x_usb:001:012", sysfs: tree.sysfs)?.port == "1-1.2")
    }

    @Test func aUSBReaderIsThereWhileItsPortHoldsTheSameDevice() throws {
        let tree = try Tree()
        try tree.usb("1-1.2", vendor: "04e6", product: "5591", bus: 1, number: 7)
        let spec = try #require(NFCUSB.readers(sysfs: tree.sysfs).compactMap(NFCDeviceSpec.init(usb:)).first)
        #expect(spec.isPresent(sysfs: tree.sysfs))
        // Replugged: the same port, a new device number; the old connection string is stale.
        try FileManager.default.removeItem(atPath: tree.sysfs + "/bus/usb/devices/1-1.2")
        #expect(!spec.isPresent(sysfs: tree.sysfs))
        try FileManager.default.removeItem(atPath: tree.sysfs + "/bus/usb/devices/1-1.2:1.0")
        try tree.usb("1-1.2", vendor: "04e6", product: "5591", bus: 1, number: 8)
        #expect(!spec.isPresent(sysfs: tree.sysfs))
        let serial = NFCDeviceSpec(serial: "pn532_uart:\(tree.root)/ttyNONE")
        #expect(!serial.isPresent(sysfs: tree.sysfs))
    }

    /// libnfc's USB drivers subtract their 200 ms read step before the first read: an ECP wait of
    /// 200 ms or less would never read the chip's answer.
    @Test func theECPWaitOfAUSBReaderOutlastsLibnfcsUSBReadStep() throws {
        let polling = NFCPolling(interval: .milliseconds(50), rearm: .seconds(1), ecpFrame: nil, deselectsAfterRFFailure: true)
        let tree = try Tree()
        try tree.usb("1-1.2", vendor: "072f", product: "2200", bus: 1, number: 7)
        let usb = try #require(NFCUSB.readers(sysfs: tree.sysfs).compactMap(NFCDeviceSpec.init(usb:)).first)
        let logger = Logger(label: "test")
        #expect(NFCReaderPort(spec: usb, polling: polling, logger: logger).ecpTimeoutMilliseconds > 200)
        let serial = NFCDeviceSpec(serial: "pn532_uart:/dev/ttyUSB0")
        #expect(NFCReaderPort(spec: serial, polling: polling, logger: logger).ecpTimeoutMilliseconds == polling.ecpTimeoutMilliseconds)
    }

    @Test func serialReadersAreNamedByTheirConfiguredPath() {
        let spec = NFCDeviceSpec(serial: "pn532_uart:/dev/serial/by-id/usb-FTDI_FT232R-if00-port0:115200")
        #expect(spec.id.rawValue == "nfc:pn532_uart:/dev/serial/by-id/usb-FTDI_FT232R-if00-port0")
        #expect(NFCDeviceSpec.serialPath(of: spec.connstring) == "/dev/serial/by-id/usb-FTDI_FT232R-if00-port0")
        #expect(NFCDeviceSpec.isUSB("pn53x_usb") && NFCDeviceSpec.isUSB("acr122_usb:001:004") && !NFCDeviceSpec.isUSB(spec.connstring))
    }

    @Test func theKernelsPN533DriverIsNamedWithTheBlacklist() throws {
        let tree = try Tree()
        try tree.usb("1-1.2", vendor: "04e6", product: "5591", bus: 1, number: 7, driver: "pn533_usb")
        let device = try #require(NFCUSB.readers(sysfs: tree.sysfs).first)
        let fault = NFCDiagnosis(sysfs: tree.sysfs, proc: tree.proc).openFailure(connstring: "pn53x_usb:001:007", usb: device)
        #expect(fault.kind == .inUse)
        #expect(fault.reason.contains("kernel's pn533_usb driver owns USB device 1-1.2"))
        #expect(fault.reason.contains("blacklist pn533_usb, pn533 and nfc"))
    }

    @Test func aProcessHoldingTheDeviceIsNamedWithThePCSCAlternative() throws {
        let tree = try Tree()
        try tree.usb("3-2", vendor: "072f", product: "2200", bus: 3, number: 5, driver: "usbfs")
        try tree.process(812, name: "pcscd", holds: "/dev/bus/usb/003/005")
        try tree.process(900, name: "bash", holds: "/dev/pts/0")
        let device = try #require(NFCUSB.readers(sysfs: tree.sysfs).first)
        let fault = NFCDiagnosis(sysfs: tree.sysfs, proc: tree.proc).openFailure(connstring: "acr122_usb:003:005", usb: device)
        #expect(fault.kind == .inUse)
        #expect(fault.reason.contains("another process holds USB device 3-2 through libusb (held by pcscd (pid 812))"))
        #expect(fault.reason.contains("PC/SC backend"))
        #expect(!fault.reason.contains("bash"))
    }

    @Test func aMissingSerialDeviceIsGoneAndAHeldOneNamesItsHolder() throws {
        let tree = try Tree()
        let diagnosis = NFCDiagnosis(sysfs: tree.sysfs, proc: tree.proc)
        #expect(diagnosis.openFailure(connstring: "pn532_uart:\(tree.root)/ttyNONE", usb: nil).kind == .gone)

        let path = tree.root + "/ttyPN532"
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        try tree.process(4242, name: "nfc-poll", holds: path)
        let held = diagnosis.openFailure(connstring: "pn532_uart:\(path)", usb: nil)
        #expect(held.kind == .inUse)
        #expect(held.reason.contains("nfc-poll (pid 4242)"))

        try FileManager.default.removeItem(atPath: tree.proc + "/4242")
        let silent = diagnosis.openFailure(connstring: "pn532_uart:\(path)", usb: nil)
        #expect(silent.kind == .failed)
        #expect(silent.reason.contains("no PN532 answered"))
    }

    /// The ids the backend finds in sysfs are the ids `udev/70-passtapd-nfc.rules` gives the
    /// daemon's group (scripts/test_udev_rules.py checks the rules against libnfc 1.8.0's tables).
    @Test func theUdevRulesCoverTheSameReaders() throws {
        let rules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("udev/70-passtapd-nfc.rules")
        let text = try String(contentsOf: rules, encoding: .utf8)
        var ids = Set<String>()
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let vendor = line.firstMatch(of: /ATTR\{idVendor\}=="([0-9a-f]{4})"/)?.1,
                  let product = line.firstMatch(of: /ATTR\{idProduct\}=="([0-9a-f]{4})"/)?.1 else { continue }
            ids.insert("\(vendor):\(product)")
        }
        let ours = Set(NFCUSB.supported.map { String(format: "%04x:%04x", $0.vendor, $0.product) })
        #expect(ids == ours)
        #expect(ours.count == 10)
    }
}
