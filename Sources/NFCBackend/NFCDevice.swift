internal import CNFC
import Foundation
import Synchronization

/// One libnfc device opened in a context of its own, in initiator (reader) mode.
///
/// Only the thread that opened it calls it, except ``abortExchange()``, which any thread may call
/// to end a blocking call early (pn532_uart wakes its `select` through a pipe): hence
/// `@unchecked Sendable`, so the port can hold it for that one call.
final class NFCDevice: @unchecked Sendable {
    /// A target libnfc selected, as far as PassTap uses it.
    struct Target {
        var uid: [UInt8]
        var atqa: [UInt8]
        var sak: UInt8
        /// The ATS as libnfc keeps it: without its length byte TL.
        var atsAfterLength: [UInt8]
    }

    /// The connection string it was opened with.
    let connstring: String
    private let context: OpaquePointer
    private let device: OpaquePointer
    /// Set once closed; ``abortExchange()`` then does nothing.
    private let state = Mutex(State())

    private struct State {
        var closed = false
        /// An `abortable` exchange is in progress.
        var exchanging = false
    }

    /// Opens `connstring` (`nfc_open`) and sets the chip up as an initiator.
    /// - Throws: ``NFCError`` with code `openFailed` when libnfc returns no device (it never
    ///   says why: the caller diagnoses), or the error of the first set-up call that failed.
    init(connstring: String) throws(NFCError) {
        self.connstring = connstring
        let context = try Self.makeContext()
        let usb = NFCDeviceSpec.isUSB(connstring)
        let device: OpaquePointer? = NFCCalls.setupCall("nfc_open", locked: usb) { nfc_open(context, connstring) }
        guard let device else {
            NFCCalls.setupCall("nfc_exit") { nfc_exit(context) }
            throw NFCError(code: .openFailed, function: "nfc_open", message: "libnfc could not open \(connstring)")
        }
        self.context = context
        self.device = device
        do {
            try nfc("nfc_initiator_init", device) { nfc_initiator_init(device) }
            // Finite retries: an empty select answers at once instead of waiting ~300 ms.
            try set(NP_INFINITE_SELECT, false)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// A new libnfc context (`nfc_init`, under the set-up lock), to be freed with `nfc_exit`.
    ///
    /// libnfc 1.8's `nfc_init` allocates the context, reads `/etc/nfc/libnfc.conf` and
    /// `/etc/nfc/devices.d/` (a missing or unreadable file is skipped, with a debug line) and the
    /// `LIBNFC_*` variables, and loads its driver list once: the one failure it reports is an
    /// allocation that failed, as a NULL context.
    /// - Throws: ``NFCError`` (`nfc_init`) when libnfc gives no context.
    static func makeContext() throws(NFCError) -> OpaquePointer {
        var context: OpaquePointer?
        NFCCalls.setupCall("nfc_init") {
            if !NFCCalls.mustFail("nfc_init") { nfc_init(&context) }
        }
        guard let context else {
            throw NFCError(code: .software, function: "nfc_init", message: "libnfc could not allocate a context")
        }
        return context
    }

    /// Whether libnfc initialises: makes a context and frees it at once (`nfc_init`, `nfc_exit`).
    /// - Throws: ``NFCError`` (`nfc_init`) when it does not.
    static func checkLibrary() throws(NFCError) {
        let context = try makeContext()
        NFCCalls.setupCall("nfc_exit") { nfc_exit(context) }
    }

    /// libnfc's own device scan (`nfc_list_devices`): the devices named in `/etc/nfc` and
    /// `LIBNFC_DEVICE`, and the USB readers it finds. It calls `usb_set_configuration` on every
    /// USB reader it matches, which disturbs one already open: call it only before any is.
    static func scan(maximum: Int = NFCReaderBackend.maximumScannedDevices) -> [String] {
        guard let context = try? makeContext() else { return [] }
        defer { NFCCalls.setupCall("nfc_exit") { nfc_exit(context) } }
        let buffer = UnsafeMutablePointer<nfc_connstring>.allocate(capacity: maximum)
        defer { buffer.deallocate() }
        let found = NFCCalls.setupCall("nfc_list_devices") { nfc_list_devices(context, buffer, maximum) }
        return (0..<min(found, maximum)).map { index in
            withUnsafeBytes(of: buffer[index]) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
    }

    /// libnfc's name for the device (`PN532 v1.6`, `ACS / ACR122U PICC Interface`).
    var name: String { String(cString: nfc_device_get_name(device)) }

    /// Sets a boolean property (`nfc_device_set_property_bool`).
    func set(_ property: nfc_property, _ value: Bool) throws(NFCError) {
        try nfc("nfc_device_set_property_bool", device) { nfc_device_set_property_bool(device, property, value) }
    }

    /// Sets an integer property (`nfc_device_set_property_int`).
    func set(_ property: nfc_property, _ value: Int32) throws(NFCError) {
        try nfc("nfc_device_set_property_int", device) { nfc_device_set_property_int(device, property, value) }
    }

    /// The chip's RF timeout for raw frames and non-ISO-DEP exchanges (`NP_TIMEOUT_COM`).
    func setRawFrameTimeout(milliseconds: Int32) throws(NFCError) {
        try set(NP_TIMEOUT_COM, milliseconds)
    }

    /// One select of a passive ISO 14443-A target at 106 kbps: the target, or `nil` when none
    /// answered.
    func selectISO14443A() throws(NFCError) -> Target? {
        var target = nfc_target()
        let modulation = nfc_modulation(nmt: NMT_ISO14443A, nbr: NBR_106)
        let found = try nfc("nfc_initiator_select_passive_target", device) {
            nfc_initiator_select_passive_target(device, modulation, nil, 0, &target)
        }
        guard found > 0 else { return nil }
        let info = target.nti.nai
        let uid = withUnsafeBytes(of: info.abtUid) { Array($0.prefix(min(info.szUidLen, $0.count))) }
        let ats = withUnsafeBytes(of: info.abtAts) { Array($0.prefix(min(info.szAtsLen, $0.count))) }
        let atqa = withUnsafeBytes(of: info.abtAtqa) { Array($0) }
        return Target(uid: uid, atqa: atqa, sak: info.btSak, atsAfterLength: ats)
    }

    /// Sends `bytes` to the selected target and returns its answer (`nfc_initiator_transceive_bytes`:
    /// InDataExchange with easy framing, InCommunicateThru without).
    func transceive(_ bytes: [UInt8], maxAnswer: Int, timeoutMilliseconds: Int32, abortable: Bool = false) throws(NFCError) -> [UInt8] {
        if abortable { setExchanging(true) }
        defer { if abortable { setExchanging(false) } }
        var answer = [UInt8](repeating: 0, count: maxAnswer)
        let count = try answer.withUnsafeMutableBufferPointer { (buffer) throws(NFCError) -> Int32 in
            try nfc("nfc_initiator_transceive_bytes", device) {
                nfc_initiator_transceive_bytes(device, bytes, bytes.count, buffer.baseAddress, buffer.count, timeoutMilliseconds)
            }
        }
        return Array(answer.prefix(Int(count)))
    }

    private func setExchanging(_ value: Bool) {
        state.withLock { (state: inout State) -> Void in state.exchanging = value }
    }

    /// Whether the selected target still answers (`nfc_initiator_target_is_present`).
    func targetIsPresent() throws(NFCError) -> Bool {
        do {
            try nfc("nfc_initiator_target_is_present", device) { nfc_initiator_target_is_present(device, nil) }
            return true
        } catch where error.meansRFFailure || error.code == .invalidArgument {
            return false
        }
    }

    /// S(DESELECT) for an ISO-DEP target, HLTA otherwise (`nfc_initiator_deselect_target`).
    func deselect() throws(NFCError) {
        try nfc("nfc_initiator_deselect_target", device) { nfc_initiator_deselect_target(device) }
    }

    /// Turns the RF field off for `offMilliseconds`, then on again, so every target in it resets
    /// (a card needs the field gone for about 5 ms: EMV's reset time is 5.1 ms).
    func cycleField(offMilliseconds: Int) throws(NFCError) {
        try set(NP_ACTIVATE_FIELD, false)
        usleep(useconds_t(offMilliseconds * 1000))
        try set(NP_ACTIVATE_FIELD, true)
    }

    /// Ends the card exchange in progress on the device's thread (`nfc_abort_command`), from any
    /// thread; never blocks. Only an exchange sent with `abortable` is aborted: pn532_uart wakes
    /// only a receive already waiting (it closes one end of a pipe and makes a new pipe), and an
    /// abort that lands while a quick command's answer is on its way leaves that answer unread for
    /// the next command, which libnfc may then misread (it even calls `abort()` on some bytes).
    /// Returns whether such an exchange was in progress (so the caller may try again).
    @discardableResult
    func abortExchange() -> Bool {
        let device = self.device
        let aborted: Bool = state.withLock { (state: inout State) -> Bool in
            if state.closed || !state.exchanging { return false }
            NFCCalls.willCall("nfc_abort_command")
            let _: Int32 = nfc_abort_command(device)
            return true
        }
        return aborted
    }

    /// Closes the device and its context (`nfc_close` drops the field; `nfc_exit`). Idempotent.
    func close() {
        let wasOpen = state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        guard wasOpen else { return }
        NFCCalls.setupCall("nfc_close", locked: NFCDeviceSpec.isUSB(connstring)) { nfc_close(device) }
        NFCCalls.setupCall("nfc_exit") { nfc_exit(context) }
    }
}
