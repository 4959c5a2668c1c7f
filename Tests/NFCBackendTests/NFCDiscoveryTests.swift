import Foundation
import Logging
import PassTapCore
import Testing

@testable import NFCBackend

/// Which devices the libnfc backend's discovery hands the reader registry, against a fake sysfs
/// tree: configured serial devices while their path exists, configured USB drivers' devices, and
/// with no devices configured every supported USB reader.
@Suite(.timeLimit(.minutes(1))) struct NFCDiscoveryTests {
    private func discovery(_ devices: [String], tree: NFCSysfsTests.Tree) -> NFCDiscovery {
        var logger = Logger(label: "passtap.test.nfc-discovery")
        logger.logLevel = .critical
        let polling = NFCPolling(interval: .milliseconds(100), rearm: .milliseconds(100), ecpFrame: nil, deselectsAfterRFFailure: false)
        let quiet = logger
        return NFCDiscovery(devices: devices, sysfs: tree.sysfs, logger: logger) { spec in
            NFCReaderPort(spec: spec, polling: polling, logger: quiet)
        }
    }

    @Test func aConfiguredSerialDeviceIsThereWhileItsPathExists() throws {
        let tree = try Tree()
        let path = tree.root + "/ttyUSB0"
        let found = discovery(["pn532_uart:\(path):115200"], tree: tree)
        #expect(found.present(scanned: []).isEmpty)
        try "".write(toFile: path, atomically: true, encoding: .utf8)
        let present = found.present(scanned: [])
        #expect(present.map(\.id.rawValue) == ["nfc:pn532_uart:\(path)"])
        #expect(present.map(\.connstring) == ["pn532_uart:\(path):115200"])
        try FileManager.default.removeItem(atPath: path)
        #expect(found.present(scanned: []).isEmpty)
    }

    @Test func aConfiguredUSBDriverFindsEachOfItsDevicesAndABusAndDeviceNumberOnlyThatOne() throws {
        let tree = try Tree()
        try tree.usb("1-1.2", vendor: "04e6", product: "5591", bus: 1, number: 7)
        try tree.usb("1-1.4", vendor: "04e6", product: "5591", bus: 1, number: 8)
        try tree.usb("2-1", vendor: "072f", product: "2200", bus: 2, number: 3)
        #expect(discovery(["pn53x_usb"], tree: tree).present(scanned: []).map(\.connstring).sorted() == ["pn53x_usb:001:007", "pn53x_usb:001:008"])
        #expect(discovery(["pn53x_usb:001:008"], tree: tree).present(scanned: []).map(\.id.rawValue) == ["nfc:pn53x_usb:1-1.4"])
    }

    @Test func withNoDevicesConfiguredEverySupportedUSBReaderAndEveryScannedDeviceIsThere() throws {
        let tree = try Tree()
        try tree.usb("1-1.2", vendor: "04e6", product: "5591", bus: 1, number: 7)
        try tree.usb("1-1.3", vendor: "046d", product: "c31c", bus: 1, number: 9)  // a keyboard
        let path = tree.root + "/ttyACM0"
        try "".write(toFile: path, atomically: true, encoding: .utf8)
        let present = discovery([], tree: tree).present(scanned: ["pn532_uart:\(path)"])
        #expect(present.map(\.id.rawValue).sorted() == ["nfc:pn532_uart:\(path)", "nfc:pn53x_usb:1-1.2"])
    }

    typealias Tree = NFCSysfsTests.Tree
}
