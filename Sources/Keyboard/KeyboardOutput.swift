import CEvdev
import CKeyboardX11
import CXKBCommon
import Foundation

/// Where `passtap keyboard` sends keys: a uinput device, or the X server through XTEST. Its
/// calls block (a write to the kernel, a round trip to the X server): the typist makes them on a
/// thread of its own (``KeyboardTypist``), never on Swift's cooperative pool.
public protocol KeyboardOutput: AnyObject {
    /// The layout the keys are interpreted with now: the configured one (uinput), or the X
    /// server's live keymap, asked again before each read (x11).
    func currentLayout() throws(KeyboardError) -> KeyboardLayout
    /// Presses or releases the key `keycode` (XKB's).
    func key(_ keycode: UInt32, down: Bool) throws(KeyboardError)
    /// Every key sent so far has reached its destination.
    func flush() throws(KeyboardError)
    /// Ends the output: the uinput device is destroyed, the display closed. Called once, last.
    func close()
}

/// A virtual keyboard through `/dev/uinput`, made with libevdev: the keys reach every session,
/// the console included, and are interpreted with the session's layout, which must be
/// ``KeyboardSettings/layout`` (docs/keyboard.md, "Layouts").
public final class UInputKeyboard: KeyboardOutput {
    private let device: OpaquePointer
    private let uinput: OpaquePointer
    private let layout: KeyboardLayout

    /// The device, named "PassTap keyboard", with every key of a PC keyboard.
    public init(layout: KeyboardLayout) throws(KeyboardError) {
        guard let device = libevdev_new() else { throw KeyboardError("libevdev cannot start (libevdev_new)") }
        libevdev_set_name(device, "PassTap keyboard")
        libevdev_set_id_bustype(device, Int32(BUS_VIRTUAL))
        libevdev_enable_event_type(device, UInt32(EV_KEY))
        for code in 1...UInt32(KEY_MICMUTE) { libevdev_enable_event_code(device, UInt32(EV_KEY), code, nil) }
        var uinput: OpaquePointer?
        let status = libevdev_uinput_create_from_device(device, LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue, &uinput)
        guard status == 0, let uinput else {
            libevdev_free(device)
            throw KeyboardError(
                "cannot make the uinput keyboard: \(String(cString: strerror(-status))): /dev/uinput must exist (modprobe uinput) and be writable by this user (group passtap-keyboard, docs/keyboard.md)")
        }
        self.device = device
        self.uinput = uinput
        self.layout = layout
    }

    private var closed = false

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        libevdev_uinput_destroy(uinput)
        libevdev_free(device)
    }

    public func currentLayout() -> KeyboardLayout { layout }

    public func key(_ keycode: UInt32, down: Bool) throws(KeyboardError) {
        guard keycode > 8 else { throw KeyboardError("no evdev key for XKB keycode \(keycode)") }
        try write(UInt32(EV_KEY), keycode - 8, down ? 1 : 0)
        try write(UInt32(EV_SYN), UInt32(SYN_REPORT), 0)
    }

    public func flush() {}

    private func write(_ type: UInt32, _ code: UInt32, _ value: Int32) throws(KeyboardError) {
        let status = libevdev_uinput_write_event(uinput, type, code, value)
        guard status == 0 else { throw KeyboardError("the uinput keyboard refused a key: \(String(cString: strerror(-status)))") }
    }
}

/// The X display, through XTEST: keys are interpreted with the server's live keymap, read with
/// libxkbcommon-x11 before each read. The X libraries are opened with dlopen (CKeyboardX11).
public final class X11Keyboard: KeyboardOutput {
    private let display: OpaquePointer
    private let composeLocale: String

    /// The display `name` (empty: `$DISPLAY`).
    public init(display name: String, composeLocale: String) throws(KeyboardError) {
        var error = [CChar](repeating: 0, count: 512)
        let opened = error.withUnsafeMutableBufferPointer { buffer in
            passtap_x11_open(name.isEmpty ? nil : name, buffer.baseAddress, buffer.count)
        }
        guard let opened else { throw KeyboardError("cannot type into X: " + String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        display = opened
        self.composeLocale = composeLocale
    }

    private var closed = false

    deinit { close() }

    public func close() {
        guard !closed else { return }
        closed = true
        passtap_x11_close(display)
    }

    public func currentLayout() throws(KeyboardError) -> KeyboardLayout {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { throw KeyboardError("libxkbcommon cannot start (xkb_context_new)") }
        guard let keymap = passtap_x11_keymap(display, context) else {
            xkb_context_unref(context)
            throw KeyboardError("the X server's keymap cannot be read (libxkbcommon-x11)")
        }
        return KeyboardLayout(context: context, keymap: keymap, composeLocale: composeLocale)
    }

    public func key(_ keycode: UInt32, down: Bool) throws(KeyboardError) {
        guard passtap_x11_key(display, keycode, down ? 1 : 0) == 0 else { throw KeyboardError("the X server refused keycode \(keycode)") }
    }

    public func flush() throws(KeyboardError) {
        guard passtap_x11_sync(display) == 0 else { throw KeyboardError("the X server reported an error while typing") }
    }
}

/// Types strokes on an output, on a thread of its own: every key pressed is released, also when
/// the output fails midway, so no key is left held (a held key repeats in the session).
public final class KeyboardTypist: @unchecked Sendable {
    // Only `queue` touches `output`.
    private let output: any KeyboardOutput
    private let queue = DispatchQueue(label: "passtap.keyboard")
    private let delay: UInt32

    /// A typist on `output`, pausing `keyDelayMilliseconds` after each key event.
    public init(output: any KeyboardOutput, keyDelayMilliseconds: Int) {
        self.output = output
        delay = UInt32(max(0, keyDelayMilliseconds)) * 1000
    }

    /// Types `text` and then `suffix`, after checking that the layout can type all of it; returns
    /// the layout's name. A character it cannot type refuses the whole text before any key.
    public func type(_ text: String, suffix: KeyboardSettings.Suffix) async throws(KeyboardError) -> String {
        let result: Result<String, KeyboardError> = await withCheckedContinuation { continuation in
            queue.async { [self] in
                do throws(KeyboardError) {
                    let layout = try output.currentLayout()
                    var strokes = try layout.strokes(for: text)
                    switch suffix {
                    case .enter:
                        guard let enter = layout.enter else { throw KeyboardError("the \(layout.name) layout has no Return key") }
                        strokes.append(enter)
                    case .tab:
                        guard let tab = layout.tab else { throw KeyboardError("the \(layout.name) layout has no Tab key") }
                        strokes.append(tab)
                    case .none: break
                    }
                    try press(strokes)
                    continuation.resume(returning: .success(layout.name))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Ends the output (the uinput device destroyed, the display closed), after any typing.
    public func close() async {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                output.close()
                continuation.resume()
            }
        }
    }

    /// Each stroke: its modifiers down, the key down and up, the modifiers up in reverse.
    private func press(_ strokes: [KeyStroke]) throws(KeyboardError) {
        var held: [UInt32] = []
        do throws(KeyboardError) {
            for stroke in strokes {
                for keycode in stroke.modifiers + [stroke.keycode] {
                    try output.key(keycode, down: true)
                    held.append(keycode)
                    pause()
                }
                while let keycode = held.popLast() {
                    try output.key(keycode, down: false)
                    pause()
                }
            }
            try output.flush()
        } catch {
            while let keycode = held.popLast() { try? output.key(keycode, down: false) }
            try? output.flush()
            throw error
        }
    }

    private func pause() {
        if delay > 0 { usleep(delay) }
    }
}
