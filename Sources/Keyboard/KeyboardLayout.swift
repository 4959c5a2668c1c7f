import CXKBCommon

/// One key press as a keyboard sends it: the modifier keys held (Shift, AltGr…), then the key.
/// Key codes are XKB's (evdev's code + 8, which X11 uses as they are).
public struct KeyStroke: Hashable, Sendable, CustomStringConvertible {
    /// The key.
    public var keycode: UInt32
    /// The modifier keys held while it is pressed, pressed in this order and released in reverse.
    public var modifiers: [UInt32]

    /// A stroke of `keycode` with `modifiers` held.
    public init(keycode: UInt32, modifiers: [UInt32] = []) {
        self.keycode = keycode
        self.modifiers = modifiers
    }

    public var description: String { (modifiers.map(String.init) + [String(keycode)]).joined(separator: "+") }
}

/// A keyboard layout as `passtap keyboard` types with it: for each character it can type, the
/// key strokes that give it, read from an XKB keymap with libxkbcommon, as a desktop would
/// interpret the keys (docs/keyboard.md, "Layouts").
///
/// A character comes from one stroke when some key gives it at some level of the first layout
/// group (Shift, AltGr, Shift+AltGr…), the modifier keys being found in the keymap itself; else
/// from a dead key and a base key when the Compose table combines them (`´` then `e` is `é` on a
/// German keyboard). The Compose table is the locale's (`compose_locale`), as the session's input
/// method uses it: without one, characters that need a dead key cannot be typed.
public final class KeyboardLayout {
    /// The keymap's description, for logs and errors ("German", "French").
    public let name: String
    /// The Return and Tab keys (the suffixes), when the keymap has them.
    public let enter: KeyStroke?
    public let tab: KeyStroke?
    /// The strokes of each character the layout can type.
    private let strokes: [Unicode.Scalar: [KeyStroke]]
    private let context: OpaquePointer
    private let keymap: OpaquePointer
    private let compose: OpaquePointer?

    /// The layout named `layout` (XKB's names: `us`, `de`, `fr`), with `variant` (`nodeadkeys`…),
    /// compiled from the system's XKB data (xkb-data) with the `evdev` rules and the `pc105` model,
    /// as a desktop session on a PC keyboard uses; Compose tables of `composeLocale`.
    public convenience init(layout: String, variant: String = "", composeLocale: String = "en_US.UTF-8") throws(KeyboardError) {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { throw KeyboardError("libxkbcommon cannot start (xkb_context_new)") }
        var names = xkb_rule_names()
        let keymap: OpaquePointer? = "evdev".withCString { rules in
            "pc105".withCString { model in
                layout.withCString { layoutName in
                    variant.withCString { variantName in
                        names.rules = rules
                        names.model = model
                        names.layout = layoutName
                        names.variant = variantName
                        return xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS)
                    }
                }
            }
        }
        guard let keymap else {
            xkb_context_unref(context)
            throw KeyboardError("no XKB layout \"\(layout)\"\(variant.isEmpty ? "" : " variant \"\(variant)\""): the names are in /usr/share/X11/xkb/rules/evdev.lst (localectl list-x11-keymap-layouts)")
        }
        self.init(context: context, keymap: keymap, composeLocale: composeLocale)
    }

    /// The layout of `keymap` (an X server's live keymap), compiled in `context`; takes both
    /// references.
    public init(context: OpaquePointer, keymap: OpaquePointer, composeLocale: String = "en_US.UTF-8") {
        self.context = context
        self.keymap = keymap
        compose = xkb_compose_table_new_from_locale(context, composeLocale, XKB_COMPOSE_COMPILE_NO_FLAGS)
        name = xkb_keymap_layout_get_name(keymap, 0).map { String(cString: $0) } ?? "unnamed"
        let map = Self.map(keymap, compose: compose)
        strokes = map.strokes
        enter = map.enter
        tab = map.tab
    }

    deinit {
        if let compose { xkb_compose_table_unref(compose) }
        xkb_keymap_unref(keymap)
        xkb_context_unref(context)
    }

    /// The strokes that type `text`, every character checked before the first is typed: a
    /// character the layout cannot type refuses the whole text.
    public func strokes(for text: String) throws(KeyboardError) -> [KeyStroke] {
        var result: [KeyStroke] = []
        for scalar in text.unicodeScalars {
            guard let strokes = strokes[scalar] else {
                throw KeyboardError("the \(name) layout cannot type \(Self.describe(scalar))\(compose == nil ? " (no Compose table for dead keys)" : "")")
            }
            result += strokes
        }
        return result
    }

    /// Whether the layout can type `scalar`.
    public func canType(_ scalar: Unicode.Scalar) -> Bool { strokes[scalar] != nil }

    /// What `strokes` type on this layout: each stroke's keys pressed and released through
    /// libxkbcommon's state machine, and its keysyms through the Compose table, as a desktop
    /// does. For tests and `passtap keyboard --check`: the strokes are proven against the same
    /// keymap, independently of how they were found.
    public func decode(_ strokes: [KeyStroke]) -> String {
        guard let state = xkb_state_new(keymap) else { return "" }
        defer { xkb_state_unref(state) }
        let composeState = compose.flatMap { xkb_compose_state_new($0, XKB_COMPOSE_STATE_NO_FLAGS) }
        defer { if let composeState { xkb_compose_state_unref(composeState) } }
        var text = ""
        for stroke in strokes {
            for modifier in stroke.modifiers { xkb_state_update_key(state, modifier, XKB_KEY_DOWN) }
            let sym = xkb_state_key_get_one_sym(state, stroke.keycode)
            xkb_state_update_key(state, stroke.keycode, XKB_KEY_DOWN)
            var typed: String?
            if let composeState, xkb_compose_state_feed(composeState, sym) == XKB_COMPOSE_FEED_ACCEPTED {
                switch xkb_compose_state_get_status(composeState) {
                case XKB_COMPOSE_COMPOSING: typed = ""
                case XKB_COMPOSE_COMPOSED:
                    typed = Self.utf8 { xkb_compose_state_get_utf8(composeState, $0, $1) }
                    xkb_compose_state_reset(composeState)
                case XKB_COMPOSE_CANCELLED:
                    typed = ""
                    xkb_compose_state_reset(composeState)
                default: break
                }
            }
            text += typed ?? Self.utf8 { xkb_keysym_to_utf8(sym, $0, $1) }
            xkb_state_update_key(state, stroke.keycode, XKB_KEY_UP)
            for modifier in stroke.modifiers.reversed() { xkb_state_update_key(state, modifier, XKB_KEY_UP) }
        }
        return text
    }

    /// `U+00FC 'ü'` for an error: the character and its code, printable or not.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        let code = "U+" + String(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4))
        return scalar.properties.generalCategory == .control || scalar.value < 0x20 ? code : "\(code) '\(Character(scalar))'"
    }

    private static func utf8(_ call: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let length = buffer.withUnsafeMutableBufferPointer { call($0.baseAddress!, $0.count) }
        guard length > 0 else { return "" }
        // xkb_keysym_to_utf8 counts the terminating NUL, xkb_compose_state_get_utf8 does not.
        return String(decoding: buffer.prefix(Int(min(length, 63))).prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: The map

    private struct Map {
        var strokes: [Unicode.Scalar: [KeyStroke]] = [:]
        var enter: KeyStroke?
        var tab: KeyStroke?
    }

    /// Modifier keys tried first, by XKB keycode: left and right Shift, right Alt (AltGr), the
    /// Level 5 key, Control, left Alt; any other key that sets the modifier comes after.
    private static let preferredModifierKeys: [UInt32] = [50, 62, 108, 92, 37, 64, 105, 133]

    private static func map(_ keymap: OpaquePointer, compose: OpaquePointer?) -> Map {
        // X keycodes stop at 255, and uinput's keys at KEY_MICMUTE (248 + 8): higher keycodes
        // of the evdev keymap (I-keys) are not typed with.
        let low = max(xkb_keymap_min_keycode(keymap), 9)
        let high = min(xkb_keymap_max_keycode(keymap), 255)
        let modifierKeys = modifierKeys(keymap, low: low, high: high)
        var map = Map()
        // Each character's simplest stroke (fewest modifiers, then lowest level), and its keysym.
        var direct: [Unicode.Scalar: (stroke: KeyStroke, sym: xkb_keysym_t, cost: Int)] = [:]
        var deadKeys: [(sym: xkb_keysym_t, stroke: KeyStroke, cost: Int)] = []
        guard low <= high else { return map }
        for keycode in low...high where xkb_keymap_num_layouts_for_key(keymap, keycode) > 0 {
            // Modifier keys type nothing themselves.
            if modifierKeys.values.contains(keycode) { continue }
            let levels = xkb_keymap_num_levels_for_key(keymap, keycode, 0)
            for level in 0..<levels {
                var syms: UnsafePointer<xkb_keysym_t>?
                guard xkb_keymap_key_get_syms_by_level(keymap, keycode, 0, level, &syms) == 1, let sym = syms?.pointee else { continue }
                guard let modifiers = modifiers(keymap, keycode: keycode, level: level, keys: modifierKeys) else { continue }
                let stroke = KeyStroke(keycode: keycode, modifiers: modifiers)
                let cost = modifiers.count * 10 + Int(level)
                if sym == 0xFF0D, map.enter == nil { map.enter = stroke }  // XKB_KEY_Return
                if sym == 0xFF09, map.tab == nil { map.tab = stroke }  // XKB_KEY_Tab
                if (0xFE50...0xFE93).contains(sym) {  // XKB_KEY_dead_grave … XKB_KEY_dead_longsolidusoverlay
                    if !deadKeys.contains(where: { $0.sym == sym && $0.cost <= cost }) { deadKeys.append((sym, stroke, cost)) }
                    continue
                }
                let code = xkb_keysym_to_utf32(sym)
                guard code >= 0x20, code != 0x7F, let scalar = Unicode.Scalar(code), !(0x80..<0xA0).contains(code) else { continue }
                if let known = direct[scalar], known.cost <= cost { continue }
                direct[scalar] = (stroke, sym, cost)
            }
        }
        for (scalar, entry) in direct { map.strokes[scalar] = [entry.stroke] }
        guard let compose, let state = xkb_compose_state_new(compose, XKB_COMPOSE_STATE_NO_FLAGS) else { return map }
        defer { xkb_compose_state_unref(state) }
        // A dead key, then a base key: every pair the Compose table turns into one character that
        // no key gives directly. The cheapest pair wins.
        var composed: [Unicode.Scalar: (strokes: [KeyStroke], cost: Int)] = [:]
        for dead in deadKeys {
            for (_, base) in direct {
                xkb_compose_state_reset(state)
                guard xkb_compose_state_feed(state, dead.sym) == XKB_COMPOSE_FEED_ACCEPTED,
                    xkb_compose_state_get_status(state) == XKB_COMPOSE_COMPOSING,
                    xkb_compose_state_feed(state, base.sym) == XKB_COMPOSE_FEED_ACCEPTED,
                    xkb_compose_state_get_status(state) == XKB_COMPOSE_COMPOSED
                else { continue }
                let text = utf8 { xkb_compose_state_get_utf8(state, $0, $1) }
                guard text.unicodeScalars.count == 1, let scalar = text.unicodeScalars.first, map.strokes[scalar] == nil else { continue }
                let cost = dead.cost + base.cost
                if let known = composed[scalar], known.cost <= cost { continue }
                composed[scalar] = ([dead.stroke, base.stroke], cost)
            }
        }
        for (scalar, entry) in composed { map.strokes[scalar] = entry.strokes }
        return map
    }

    /// For each real modifier (by its bit), a key that sets it alone while held: found by pressing
    /// each key in a fresh state, preferred keys first.
    private static func modifierKeys(_ keymap: OpaquePointer, low: UInt32, high: UInt32) -> [UInt32: UInt32] {
        var keys: [UInt32: UInt32] = [:]
        guard low <= high else { return keys }
        let candidates = preferredModifierKeys.filter { (low...high).contains($0) } + (low...high).filter { !preferredModifierKeys.contains($0) }
        for keycode in candidates {
            guard let state = xkb_state_new(keymap) else { continue }
            xkb_state_update_key(state, keycode, XKB_KEY_DOWN)
            let mask = xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED)
            xkb_state_unref(state)
            // One modifier bit, and no lock (Caps Lock, Num Lock latch or lock instead).
            guard mask != 0, mask & (mask - 1) == 0, keys[mask] == nil else { continue }
            keys[mask] = keycode
        }
        return keys
    }

    /// The modifier keys that select `level` of `keycode`: the first of the level's modifier
    /// masks whose every bit has a key, fewest bits first; `nil` when none has.
    private static func modifiers(_ keymap: OpaquePointer, keycode: UInt32, level: UInt32, keys: [UInt32: UInt32]) -> [UInt32]? {
        var masks = [xkb_mod_mask_t](repeating: 0, count: 16)
        let count = Int(xkb_keymap_key_get_mods_for_level(keymap, keycode, 0, level, &masks, masks.count))
        if count == 0 { return level == 0 ? [] : nil }
        let usable = masks.prefix(count).compactMap { mask -> [UInt32]? in
            var held: [UInt32] = []
            for bit in 0..<32 where mask & (1 << bit) != 0 {
                guard let key = keys[1 << UInt32(bit)] else { return nil }
                held.append(key)
            }
            return held
        }
        return usable.min { $0.count < $1.count }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
