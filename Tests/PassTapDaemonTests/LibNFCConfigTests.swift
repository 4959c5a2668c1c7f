import PassTapCore
import PassTapDaemon
import Testing
import VAS
import VASSettings

/// `[libnfc]`: every key read, the ECP frame derived from `[vas]` or checked against it, and
/// every refusal naming the file, line, key and what was expected.
@Suite(.timeLimit(.minutes(1))) struct LibNFCConfigTests {
    static let file = "/etc/passtap/passtapd.toml"
    /// VAS on, in `mode`, with one URL-only merchant (no key file needed).
    static func vas(_ mode: String) -> String {
        "[vas]\nenabled = true\nmode = \"\(mode)\"\n[[vas.merchants]]\npass_type_id = \"pass.a\"\nurl = \"https://a.b\"\n"
    }

    @Test func theBackendIsOffByDefaultAndItsDefaultsAreTheIssuesOnes() throws {
        let c = try ConfigLoader.parse("", file: Self.file)
        #expect(!c.section(.nfc).enabled)
        #expect(c.section(.pcsc).enabled)
        #expect(c.libnfc.devices.isEmpty)
        #expect(c.libnfc.pollIntervalMilliseconds == 50)
        #expect(c.libnfc.rearmMilliseconds == 1000)
        #expect(c.libnfc.ecp == .auto)
        #expect(c.libnfc.ecpFrame == nil)
        // VAS off: no ECP at all.
        #expect(c.libnfc.pollingFrame(vas: c.vas) == nil)
    }

    @Test func everyKeyIsRead() throws {
        let text = """
            [libnfc]
            enabled = true
            devices = ["pn532_uart:/dev/serial/by-id/usb-FTDI-if00-port0:115200", "pn53x_usb", "acr122_usb:001:004"]
            poll_interval_ms = 80
            rearm_ms = 700
            ecp = "off"
            ecp_frame = "6A02C20200FFFF"

            """
        let c = try ConfigLoader.parse(text, file: Self.file)
        #expect(c.section(.nfc).enabled)
        #expect(c.libnfc.devices == ["pn532_uart:/dev/serial/by-id/usb-FTDI-if00-port0:115200", "pn53x_usb", "acr122_usb:001:004"])
        #expect(c.libnfc.pollIntervalMilliseconds == 80)
        #expect(c.libnfc.rearmMilliseconds == 700)
        #expect(c.libnfc.ecp == .off)
        #expect(c.libnfc.ecpFrame?.bytes == [0x6A, 0x02, 0xC2, 0x02, 0x00, 0xFF, 0xFF])
        #expect(c.libnfc.pollingFrame(vas: c.vas) == nil, "ecp = off sends nothing, whatever the frame")
    }

    @Test(arguments: [("vas_or_payment", UInt8(0)), ("vas_and_payment", 1), ("vas_only", 2)])
    func theFrameCarriesTheSameModeAs9F26(mode: String, bits: UInt8) throws {
        let c = try ConfigLoader.parse("[libnfc]\nenabled = true\n" + Self.vas(mode), file: Self.file)
        #expect(c.libnfc.pollingFrame(vas: c.vas)?.bytes == [0x6A, 0x01, 0x00, 0x00, bits])
        #expect(c.vas.mode.bits == bits)
        // S(DESELECT) after an RF failure only where it cannot stop the phone routing to VAS.
        #expect(Configuration.LibNFC.deselectsAfterRFFailure(vas: c.vas) == (mode == "vas_only"))
    }

    @Test func aPaymentOnlyOrNonVASFrameNeedsNoVAS() throws {
        for frame in ["6A01000003", "6A02C20200FFFF"] {
            let c = try ConfigLoader.parse("[libnfc]\necp_frame = \"\(frame)\"\n", file: Self.file)
            #expect(c.libnfc.pollingFrame(vas: c.vas)?.description == frame)
        }
    }

    @Test func aMatchingOrNonVASFrameIsAccepted() throws {
        let matching = try ConfigLoader.parse("[libnfc]\necp_frame = \"6A01000002\"\n" + Self.vas("vas_only"), file: Self.file)
        #expect(matching.libnfc.pollingFrame(vas: matching.vas)?.bytes == [0x6A, 0x01, 0x00, 0x00, 0x02])
        // A version 2 access-terminal frame asks nothing of VAS: sent as given.
        let access = try ConfigLoader.parse("[libnfc]\necp_frame = \"6A02C20200FFFF\"\n" + Self.vas("vas_or_payment"), file: Self.file)
        #expect(access.libnfc.pollingFrame(vas: access.vas)?.bytes == [0x6A, 0x02, 0xC2, 0x02, 0x00, 0xFF, 0xFF])
    }

    @Test func aFrameWhoseModeContradictsVASIsRefusedAtItsLine() {
        #expect {
            _ = try ConfigLoader.parse("[libnfc]\nenabled = true\necp_frame = \"6A01000002\"\n" + Self.vas("vas_or_payment"), file: Self.file)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.line == 3 && error.keyPath == "libnfc.ecp_frame" && error.description.contains("vas_or_payment")
                && error.description.contains("6A01000000") && error.description.contains("vas_only")
        }
        #expect {
            _ = try ConfigLoader.parse("[libnfc]\necp_frame = \"6A01000003\"\n" + Self.vas("vas_only"), file: Self.file)
        } throws: { error in
            (error as? ConfigurationError)?.description.contains("payment only") == true
        }
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let text: String
        let line: Int
        let keyPath: String
        let mentions: String
        var testDescription: String { "\(keyPath): \(mentions)" }
    }

    static let refusals: [Refusal] = [
        .init(text: "[libnfc]\nenabled = 1\n", line: 2, keyPath: "libnfc.enabled", mentions: "true or false"),
        .init(text: "[libnfc]\ndevices = [\"/dev/ttyUSB0\"]\n", line: 2, keyPath: "libnfc.devices[0]", mentions: "pn532_uart, pn53x_usb"),
        .init(text: "[libnfc]\ndevices = [\"pn532_uart\"]\n", line: 2, keyPath: "libnfc.devices[0]", mentions: "/dev/serial/by-id"),
        .init(text: "[libnfc]\ndevices = [\"pn53x_usb\", \"pn53x_usb\"]\n", line: 2, keyPath: "libnfc.devices", mentions: "each device once"),
        .init(text: "[libnfc]\npoll_interval_ms = 5\n", line: 2, keyPath: "libnfc.poll_interval_ms", mentions: "from 10 to 1000"),
        .init(text: "[libnfc]\npoll_interval_ms = 100\nrearm_ms = 150\n", line: 3, keyPath: "libnfc.rearm_ms", mentions: "two poll intervals (200 ms)"),
        .init(text: "[libnfc]\necp = \"on\"\n", line: 2, keyPath: "libnfc.ecp", mentions: "\"auto\" or \"off\""),
        .init(text: "[libnfc]\necp_frame = \"6A0100\"\n", line: 2, keyPath: "libnfc.ecp_frame", mentions: "version 1: 5 bytes"),
        .init(text: "[libnfc]\necp_frame = \"5201000000\"\n", line: 2, keyPath: "libnfc.ecp_frame", mentions: "starts with 6A"),
        .init(text: "[libnfc]\necp_frame = \"6A0G\"\n", line: 2, keyPath: "libnfc.ecp_frame", mentions: "in hex"),
        .init(text: "[libnfc]\npoll_ms = 50\n", line: 2, keyPath: "libnfc.poll_ms", mentions: "unknown key"),
        .init(text: "[libnfc]\necp_frame = \"6A01000002\"\n", line: 2, keyPath: "libnfc.ecp_frame", mentions: "[vas] enabled = true for a VAS frame"),
    ]

    @Test(arguments: refusals)
    func badLibNFCSettingsAreRefusedNamingLineKeyAndExpectation(_ refusal: Refusal) {
        #expect {
            _ = try ConfigLoader.parse(refusal.text, file: Self.file)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.file == Self.file && error.line == refusal.line && error.keyPath == refusal.keyPath
                && error.description.contains(refusal.mentions)
        }
    }
}
