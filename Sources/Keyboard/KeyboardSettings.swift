import ConfigKit
import Foundation
import TOMLKit

/// `passtap keyboard`'s settings: `/etc/passtap/keyboard.toml` (docs/keyboard.md, "Setup").
///
/// Its own file, not a table of passtapd.toml: the typist is a separate program with its own user
/// (a member of the uinput group, or the desktop's user), which must not read the daemon's file
/// (it names merchant key files and forwarding secrets), and the daemon never needs these keys.
public struct KeyboardSettings: Sendable, Hashable {
    /// How keys are sent.
    public enum Output: String, Sendable, Hashable, CaseIterable {
        /// A virtual keyboard through `/dev/uinput` (libevdev): any session, the console included;
        /// the layout is `layout`, which must be the session's.
        case uinput
        /// XTEST into the X display: the user's session only; the server's live layout.
        case x11
    }

    /// The key typed after the text.
    public enum Suffix: String, Sendable, Hashable, CaseIterable {
        case enter, tab, none
    }

    /// What a read may be typed from (VTAP100's "sources").
    public enum Source: String, Sendable, Hashable, CaseIterable {
        /// An Apple VAS pass's message.
        case vas
        /// A Google Smart Tap object's value.
        case smarttap
        /// A tag's NDEF URI or text record.
        case ndef
        /// The card's UID (off by default: any card has one, a payment card included).
        case uid
    }

    /// `output`.
    public var output: Output = .uinput
    /// `socket`: passtapd's socket.
    public var socket: String = "/run/passtap/passtapd.sock"
    /// `layout` and `variant`: the XKB layout the session uses (uinput only).
    public var layout: String = "us"
    public var variant: String = ""
    /// `compose_locale`: whose Compose table turns dead keys into characters.
    public var composeLocale: String = "en_US.UTF-8"
    /// `display`: the X display (x11 only); empty for `$DISPLAY`.
    public var display: String = ""
    /// `sources`, in order of preference: the first a read has is typed.
    public var sources: [Source] = [.vas, .smarttap, .ndef]
    /// `readers`: reader ids (or their starts) whose reads are typed; empty for every reader.
    public var readers: [String] = []
    /// `prefix`: typed before the value; `{timestamp}` is the read's time (UTC, seconds).
    public var prefix: String = ""
    /// `template`: the value's text; `{value}` is what the source gave (after the cut), `{uid}`
    /// the card's UID, `{reader}` the reader's id, `{timestamp}` the read's time.
    public var template: String = "{value}"
    /// `[keyboard.templates]`: a template per source (`vas`, `smarttap`, `ndef`, `uid`), in place
    /// of `template` for reads from that source.
    public var templates: [Source: String] = [:]
    /// `suffix`.
    public var suffix: Suffix = .enter
    /// `cut_separator` and `cut_field`: the value split at the separator, and that field (from 0).
    public var cutSeparator: String = ""
    public var cutField: Int = 0
    /// `cut_offset` and `cut_length`: characters of the value from the offset; length 0 for the rest.
    public var cutOffset: Int = 0
    public var cutLength: Int = 0
    /// `allowed`: the characters that may be typed; anything else refuses the read.
    public var allowed: String = Self.defaultAllowed
    /// `max_length`: the longest text typed (prefix and value; the suffix key is not counted).
    public var maxLength: Int = 64
    /// `key_delay_ms`: the pause after each key press and release (VTAP100: 5 to 255 ms).
    public var keyDelayMilliseconds: Int = 8
    /// `max_age_ms`: a read older than this when it arrives is dropped, never typed late.
    public var maxAgeMilliseconds: Int = 3000

    /// Letters, digits and `-_.:/@`: what a member number, a URL or an e-mail address needs, and
    /// nothing a shell or a terminal would act on.
    public static let defaultAllowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:/@"

    /// The defaults.
    public init() {}

    /// The settings in the file at `path`.
    /// - Throws: ``ConfigurationError`` naming the file, line, key and what was expected.
    public static func load(path: String) throws(ConfigurationError) -> KeyboardSettings {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(file: path, line: nil, keyPath: "", problem: "cannot be read: \(error.localizedDescription)")
        }
        return try parse(text, file: path)
    }

    /// The settings in `text`, read from `file`.
    public static func parse(_ text: String, file: String) throws(ConfigurationError) -> KeyboardSettings {
        if let problem = TOMLSyntaxCheck.firstProblem(in: text) {
            throw ConfigurationError(file: file, line: problem.line, keyPath: "", problem: problem.message)
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch {
            throw ConfigurationError(file: file, line: nil, keyPath: "", problem: "not valid TOML: \(error)")
        }
        let locator = SourceLocator(text: text)
        var top = TableReader(file: file, locator: locator, table: [], entries: ConfigNode.entries(of: table))
        var settings = KeyboardSettings()
        guard case .table(let entries)? = top.node("keyboard") else {
            if top.node("keyboard") != nil { throw top.error("keyboard", "expected a table [keyboard]") }
            try top.rejectUnknownKeys(context: "keyboard.toml has one table, [keyboard]: ")
            return settings
        }
        try top.rejectUnknownKeys(context: "keyboard.toml has one table, [keyboard]: ")
        var reader = TableReader(file: file, locator: locator, table: ["keyboard"], entries: entries)
        if let name = try reader.string("output") {
            guard let output = Output(rawValue: name) else { throw reader.error("output", "expected \"uinput\" or \"x11\", found \"\(name)\"") }
            settings.output = output
        }
        if let socket = try reader.string("socket") { settings.socket = socket }
        if let layout = try reader.string("layout") { settings.layout = layout }
        if let variant = try reader.string("variant") { settings.variant = variant }
        if let locale = try reader.string("compose_locale") { settings.composeLocale = locale }
        if let display = try reader.string("display") { settings.display = display }
        if let names = try reader.strings("sources") {
            settings.sources = try names.enumerated().map { (index, name) throws(ConfigurationError) -> Source in
                guard let source = Source(rawValue: name) else {
                    throw reader.error("sources", element: index, "expected one of vas, smarttap, ndef, uid; found \"\(name)\"")
                }
                return source
            }
        }
        if let readers = try reader.strings("readers") { settings.readers = readers }
        if let prefix = try reader.string("prefix") { settings.prefix = prefix }
        if let template = try reader.string("template") { settings.template = template }
        if let node = reader.node("templates") {
            guard case .table(let entries) = node else { throw reader.error("templates", "expected a table [keyboard.templates], found \(node.typeName)") }
            var templates = TableReader(file: file, locator: locator, table: ["keyboard", "templates"], entries: entries)
            for source in Source.allCases {
                if let template = try templates.string(source.rawValue) {
                    try Self.refuseControlCharacters(template, key: source.rawValue, in: templates)
                    settings.templates[source] = template
                }
            }
            try templates.rejectUnknownKeys()
        }
        if let name = try reader.string("suffix") {
            guard let suffix = Suffix(rawValue: name) else { throw reader.error("suffix", "expected \"enter\", \"tab\" or \"none\", found \"\(name)\"") }
            settings.suffix = suffix
        }
        if let separator = try reader.string("cut_separator") { settings.cutSeparator = separator }
        if let field = try reader.integer("cut_field", in: 0...255) { settings.cutField = field }
        if let offset = try reader.integer("cut_offset", in: 0...4096) { settings.cutOffset = offset }
        if let length = try reader.integer("cut_length", in: 0...4096) { settings.cutLength = length }
        if let allowed = try reader.string("allowed") {
            guard !allowed.isEmpty else { throw reader.error("allowed", "expected at least one character") }
            if let control = allowed.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
                throw reader.error("allowed", "control characters are never typed (found \(KeyboardLayout.describe(control))); the suffix key is `suffix`")
            }
            settings.allowed = allowed
        }
        if let length = try reader.integer("max_length", in: 1...1024) { settings.maxLength = length }
        if let delay = try reader.integer("key_delay_ms", in: 0...255) { settings.keyDelayMilliseconds = delay }
        if let age = try reader.integer("max_age_ms", in: 100...60_000) { settings.maxAgeMilliseconds = age }
        try reader.rejectUnknownKeys()
        for (key, text) in [("prefix", settings.prefix), ("template", settings.template)] {
            try refuseControlCharacters(text, key: key, in: reader)
        }
        return settings
    }

    /// A template or prefix with a control character is refused when the file is read: the only
    /// key that is not a character is `suffix`.
    private static func refuseControlCharacters(_ text: String, key: String, in reader: TableReader) throws(ConfigurationError) {
        if let control = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            throw reader.error(key, "control characters are never typed (found \(KeyboardLayout.describe(control))); the suffix key is `suffix`")
        }
    }
}
