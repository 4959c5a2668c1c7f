import Testing

@testable import PassTapKeyboard

/// The layouts, proven through libxkbcommon's own state machine and Compose table: the strokes
/// found for a text, pressed in a fresh keymap state, give back exactly the text
/// (``KeyboardLayout/decode(_:)``), AltGr levels and dead keys included.
@Suite struct KeyboardLayoutTests {
    /// @, ü, é, €, z and y on German and French keyboards: AltGr, dead keys, and the letters
    /// that move.
    static let hard = "@üé€zy"

    @Test(arguments: ["de", "fr"])
    func germanAndFrenchTypeAtUmlautAcuteEuroZAndY(_ name: String) throws {
        let layout = try KeyboardLayout(layout: name)
        let strokes = try layout.strokes(for: Self.hard)
        #expect(layout.decode(strokes) == Self.hard, "\(name): \(strokes) \(Array(layout.decode(strokes).unicodeScalars.map(\.value)))")
        #expect(layout.decode(try layout.strokes(for: "Member-0042_x.y:z/@")) == "Member-0042_x.y:z/@")
    }

    @Test func theirLettersAndSymbolsNeedTheKeysADesktopWouldUse() throws {
        let german = try KeyboardLayout(layout: "de")
        // z and y swap places on a German keyboard (AD06, AB01: keycodes 29 and 52).
        #expect(try german.strokes(for: "z") == [KeyStroke(keycode: 29)])
        #expect(try german.strokes(for: "y") == [KeyStroke(keycode: 52)])
        // @ is AltGr (right Alt, 108) with Q (24); € AltGr with E (26).
        #expect(try german.strokes(for: "@") == [KeyStroke(keycode: 24, modifiers: [108])])
        #expect(try german.strokes(for: "€") == [KeyStroke(keycode: 26, modifiers: [108])])
        // é: the dead acute key (21), then e.
        #expect(try german.strokes(for: "é") == [KeyStroke(keycode: 21), KeyStroke(keycode: 26)])
        let french = try KeyboardLayout(layout: "fr")
        // ü on a French keyboard: Shift + the dead circumflex key (diaeresis), then u.
        #expect(try french.strokes(for: "ü").count == 2)
        #expect(try french.strokes(for: "é") == [KeyStroke(keycode: 11)])
    }

    @Test func usRefusesUmlautAcuteAndEuroAndTypesNothing() throws {
        let us = try KeyboardLayout(layout: "us")
        for character in ["ü", "é", "€"] {
            #expect(throws: KeyboardError.self) { try us.strokes(for: "member" + character) }
            #expect(!us.canType(character.unicodeScalars.first!))
        }
        #expect(us.decode(try us.strokes(for: "@zy")) == "@zy")
    }

    @Test func anUnknownLayoutIsAClearError() {
        #expect(throws: KeyboardError.self) { try KeyboardLayout(layout: "no-such-layout") }
    }
}
