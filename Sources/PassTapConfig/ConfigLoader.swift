import ConfigKit
import Foundation
public import PassTapCore
import ISO7816
import Logging
import TOMLKit
import VAS
import Wallets
import MetricsSettings
import WebSettings
import ForwardSettings
import NDEFSettings
import SmartTapSettings
import VASSettings
import FeedbackSettings

/// Reads and validates `passtapd.toml`.
///
/// Every problem is refused with the file, the line where it can be found, the key path and what
/// was expected: unknown keys, wrong types, bad hex AIDs, out-of-range numbers, missing files.
public enum ConfigLoader {
    /// The features' tables, each read by its own section reader after the core tables: those
    /// that open no file in this order, then (after unknown tables are refused) those that do, in
    /// this order. A feature's new table is one more entry here (docs/architecture.md, "Feature
    /// slices"); one a tap reads with goes into ``tapSections`` as well.
    package static let sections: [any ConfigSection.Type] = [
        NDEFSection.self, VASSection.self, SmartTapSection.self, MetricsSection.self, WebSection.self, ForwardSection.self,
        FeedbackSection.self,
    ]

    /// Where `passtapd` looks when `--config` is not given.
    public static let defaultPath = "/etc/passtap/passtapd.toml"

    /// Reads the file at `path` and validates it, loading the merchant and collector key files, web token files
    /// and forward secret and password files it names.
    ///
    /// `listening` is, on a reload, the `[socket]` of the running daemon, whose group and mode
    /// change only at restart: each key and token file must then pass the key policy of that socket as well
    /// as the file's, so the stricter of the two wins (``keyFilePolicy(for:listening:)``). `nil`
    /// (start, `--check-config`) judges the file alone.
    public static func load(path: String, listening: Configuration.Socket? = nil) throws(ConfigurationError) -> Configuration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (check its permissions)" : "does not exist"
            throw ConfigurationError(file: path, line: nil, keyPath: "", problem: "the config file \(reason)")
        }
        return try parse(text, file: path, listening: listening)
    }

    /// A refusal found after the file was read (the socket's directory, say) as the loader gives
    /// its own: the file, the line of `table`'s `key` when the file sets it, the key path and
    /// `problem`. A file that cannot be read again gives no line.
    public static func refusal(file: String, table: String, key: String, problem: String) -> ConfigurationError {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        let line = SourceLocator(text: text).line(table: [table], key: key)
        return ConfigurationError(file: file, line: line, keyPath: "\(table).\(key)", problem: problem)
    }

    /// Validates config text; `file` is only used in error messages. `listening` as for
    /// ``load(path:listening:)``.
    public static func parse(_ text: String, file: String, listening: Configuration.Socket? = nil) throws(ConfigurationError) -> Configuration {
        try parse(text, file: file, listening: listening, reusingTheLastTree: true)
    }

    /// Validates config text, parsing it again even when it is the last text parsed when
    /// `reusingTheLastTree` is false. The config fuzz target does: the cached tree outlives its
    /// input, and LeakSanitizer cannot follow Swift's indirect-enum payload pointers (their spare
    /// bits carry the case), so it reported the cached nodes as leaked.
    package static func parse(
        _ text: String, file: String, listening: Configuration.Socket? = nil, reusingTheLastTree: Bool
    ) throws(ConfigurationError) -> Configuration {
        // toml++ aborts on some malformed text instead of reporting it: only text that follows
        // TOML's grammar reaches it.
        if let problem = TOMLSyntaxCheck.firstProblem(in: text) {
            throw ConfigurationError(file: file, line: problem.line, keyPath: "", problem: "not valid TOML: \(problem.message)")
        }
        let locator = SourceLocator(text: text)
        let entries =
            reusingTheLastTree
            ? try ParsedTOMLCache.shared.entries(of: text) { () throws(ConfigurationError) in try tree(of: text, file: file) }
            : try tree(of: text, file: file)
        return try validate(entries, file: file, locator: locator, listening: listening)
    }

    /// The document's tree, copied out of TOMLKit.
    private static func tree(of text: String, file: String) throws(ConfigurationError) -> [(key: String, value: ConfigNode)] {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigurationError(
                file: file, line: error.source.begin.line, keyPath: "",
                problem: "not valid TOML: \(error.description)")
        } catch {
            throw ConfigurationError(file: file, line: nil, keyPath: "", problem: "not valid TOML: \(error)")
        }
        let entries = ConfigNode.entries(of: table)
        // TOMLKit 0.6.0 never frees a parsed document (its TOMLTable has no deinit; LebJe/TOMLKit
        // issue #26): every reload would leak the whole tree. The tree is copied out above, so
        // empty it, which frees every node toml++ made (only the empty root and TOMLKit's
        // copies of keys and strings stay behind; docs/reliability.md has the figures).
        table.clear()
        return entries
    }

    /// Checks a parsed document against the schema, loading the key files it names.
    private static func validate(
        _ entries: [(key: String, value: ConfigNode)], file: String, locator: SourceLocator, listening: Configuration.Socket?
    ) throws(ConfigurationError) -> Configuration {
        var root = TableReader(file: file, locator: locator, table: [], entries: entries)
        var configuration = Configuration()

        if var socket = try root.subtable("socket") {
            try readSocket(&socket, into: &configuration.socket)
        }
        var access = try root.subtable("access")
        configuration.access = try readAccess(&access, socket: configuration.socket)
        if var events = try root.subtable("events") {
            configuration.events.buffer = try events.integer("buffer", in: 1...1_000_000) ?? configuration.events.buffer
            configuration.events.clientQueue = try events.integer("client_queue", in: 1...1_000_000) ?? configuration.events.clientQueue
            // At least one line of the largest size the socket carries, so the newest event always fits.
            configuration.events.bufferBytes =
                try events.integer("buffer_bytes", in: 65_536...1_073_741_824) ?? configuration.events.bufferBytes
            try events.rejectUnknownKeys()
        }
        if var log = try root.subtable("log") {
            if let level = try log.string("level") {
                guard let parsed = Logger.Level(rawValue: level) else {
                    let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                    throw log.error("level", "expected one of \(names), found \"\(level)\"")
                }
                configuration.logLevel = parsed
            }
            try log.rejectUnknownKeys()
        }
        if var pcsc = try root.subtable("pcsc") {
            var section = configuration.section(.pcsc)
            section.enabled = try pcsc.bool("enabled") ?? section.enabled
            section.readers = try pcsc.strings("readers") ?? section.readers
            try pcsc.rejectUnknownKeys()
            configuration.backends[.pcsc] = section
        }
        var libnfcTable: TableReader?
        if var libnfc = try root.subtable("libnfc") {
            try readLibNFC(&libnfc, into: &configuration)
            libnfcTable = libnfc
        }
        if var session = try root.subtable("session") {
            configuration.aids = try aids("aids", of: &session) ?? []
            configuration.ppse = try session.bool("ppse") ?? configuration.ppse
            configuration.sessionBudgetMilliseconds =
                try session.integer("budget_ms", in: 100...60_000) ?? configuration.sessionBudgetMilliseconds
            try session.rejectUnknownKeys()
        }
        configuration.readerOverrides = try readerOverrides(of: &root)
        let keyPolicy = keyFilePolicy(for: configuration.socket, listening: listening)
        let context = ConfigSectionContext(keyPolicy: keyPolicy)
        for section in sections where !section.opensFiles {
            if var table = try root.subtable(section.table) {
                try section.read(&table, into: &configuration, context: context)
            }
        }
        // Checked before the sections that open files ([vas], [smarttap], [web], [forward]) read
        // their key, token and secret files, so a file's error cannot hide a misspelt table.
        for section in sections where section.opensFiles { root.declare(section.table) }
        try root.rejectUnknownKeys()
        for section in sections where section.opensFiles {
            if var table = try root.subtable(section.table) {
                try section.read(&table, into: &configuration, context: context)
            }
        }
        if let libnfcTable { try checkECPFrame(of: configuration, in: libnfcTable) }
        return configuration
    }

    /// libnfc 1.8's drivers that take a connection string here.
    static let libnfcDrivers = ["pn532_uart", "pn53x_usb", "acr122_usb", "pn532_spi", "pn532_i2c", "arygon"]

    private static func readLibNFC(_ table: inout TableReader, into configuration: inout Configuration) throws(ConfigurationError) {
        var section = configuration.section(.nfc)
        section.enabled = try table.bool("enabled") ?? section.enabled
        configuration.backends[.nfc] = section
        var settings = configuration.libnfc
        if let devices = try table.strings("devices") {
            for (offset, device) in devices.enumerated() {
                let driver = device.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
                guard libnfcDrivers.contains(driver) else {
                    throw table.error("devices", element: offset, "expected a libnfc connection string starting with one of \(libnfcDrivers.joined(separator: ", ")), found \"\(device)\"")
                }
                let rest = device.dropFirst(driver.count)
                if driver == "pn532_uart" || driver == "arygon", !rest.hasPrefix(":/") {
                    throw table.error("devices", element: offset, "expected \(driver):/dev/PATH[:BAUD] (a serial device has no scan: name its path, preferably under /dev/serial/by-id), found \"\(device)\"")
                }
            }
            guard Set(devices).count == devices.count else {
                throw table.error("devices", "expected each device once, found a repeated connection string")
            }
            settings.devices = devices
        }
        settings.pollIntervalMilliseconds = try table.integer("poll_interval_ms", in: 10...1000) ?? settings.pollIntervalMilliseconds
        settings.rearmMilliseconds = try table.integer("rearm_ms", in: 100...60_000) ?? settings.rearmMilliseconds
        guard settings.rearmMilliseconds >= 2 * settings.pollIntervalMilliseconds else {
            throw table.error("rearm_ms", "expected at least two poll intervals (\(2 * settings.pollIntervalMilliseconds) ms), found \(settings.rearmMilliseconds)")
        }
        if let ecp = try table.string("ecp") {
            guard let value = Configuration.LibNFC.ECP(rawValue: ecp) else {
                throw table.error("ecp", "expected \"auto\" or \"off\", found \"\(ecp)\"")
            }
            settings.ecp = value
        }
        if let text = try table.string("ecp_frame") {
            guard let bytes = try? [UInt8](hex: text) else {
                throw table.error("ecp_frame", "expected the frame in hex without its CRC (e.g. \"6A01000002\"), found \"\(text)\"")
            }
            do {
                settings.ecpFrame = try ECPFrame(bytes: bytes)
            } catch {
                throw table.error("ecp_frame", "expected an ECP frame: \(error.description), found \"\(text)\"")
            }
        }
        try table.rejectUnknownKeys()
        configuration.libnfc = settings
    }

    /// A VAS frame in `ecp_frame` must ask for what `[vas] mode` asks for in `9F26`, and needs VAS
    /// on (a phone would bring the pass up for a reader that never asks for it).
    private static func checkECPFrame(of configuration: Configuration, in table: TableReader) throws(ConfigurationError) {
        guard let frame = configuration.libnfc.ecpFrame, case .some(let asked) = frame.vasRequest else { return }
        guard configuration.vas.enabled || asked == nil else {
            throw table.error("ecp_frame", "expected [vas] enabled = true for a VAS frame (it makes the phone bring up a pass nobody reads), found \(frame) with VAS off")
        }
        guard configuration.vas.enabled else { return }
        guard asked == configuration.vas.mode else {
            let what = asked.map { "VAS mode \"\($0.rawValue)\"" } ?? "payment only"
            throw table.error("ecp_frame", "expected a frame matching [vas] mode = \"\(configuration.vas.mode.rawValue)\" (\(ECPFrame(mode: configuration.vas.mode))), found \(frame), which asks for \(what)")
        }
    }

    private static func readSocket(_ socket: inout TableReader, into settings: inout Configuration.Socket) throws(ConfigurationError) {
        if let path = try socket.string("path") {
            guard path.hasPrefix("/") else { throw socket.error("path", "expected an absolute path, found \"\(path)\"") }
            guard path.utf8.count < 108 else {
                throw socket.error("path", "expected a path shorter than 108 bytes (the Unix socket limit), found \(path.utf8.count) bytes")
            }
            settings.path = path
        }
        if let mode = try socket.string("mode") {
            guard mode.count >= 3, mode.count <= 4, let bits = UInt16(mode, radix: 8), bits <= 0o777 else {
                throw socket.error("mode", "expected octal permission bits as a string like \"0660\", found \"\(mode)\"")
            }
            // Anyone who can open the socket can use every method that is on: others get nothing.
            guard bits & 0o007 == 0 else {
                throw socket.error(
                    "mode",
                    "expected no access for others (last digit 0, such as \"0660\"; give clients the socket's group instead), found \"\(mode)\"")
            }
            settings.mode = bits
        }
        if let group = try socket.string("group") {
            guard !group.isEmpty else { throw socket.error("group", "expected a group name; remove the key to leave the group as is") }
            settings.group = group
        }
        settings.maxClients = try socket.integer("max_clients", in: 1...4096) ?? settings.maxClients
        settings.allowTransmit = try socket.bool("allow_transmit") ?? settings.allowTransmit
        settings.maxClientsPerUID = try socket.integer("max_clients_per_uid", in: 1...4096) ?? settings.maxClientsPerUID
        settings.idleTimeoutMilliseconds = try socket.integer("idle_timeout_ms", in: 1_000...86_400_000) ?? settings.idleTimeoutMilliseconds
        settings.vasReadsPerUID = try socket.integer("vas_reads_per_uid", in: 1...64) ?? settings.vasReadsPerUID
        try socket.rejectUnknownKeys()
    }

    private static func aids(_ key: String, of table: inout TableReader) throws(ConfigurationError) -> [AID]? {
        guard let texts = try table.strings(key) else { return nil }
        var aids: [AID] = []
        for (offset, text) in texts.enumerated() {
            guard let bytes = try? [UInt8](hex: text), let aid = try? AID(bytes: bytes) else {
                throw table.error(key, element: offset, "expected an AID of 5 to 16 bytes in hex, found \"\(text)\"")
            }
            aids.append(aid)
        }
        return aids
    }

    private static func readerOverrides(of root: inout TableReader) throws(ConfigurationError) -> [Configuration.ReaderOverride] {
        guard let node = root.node("reader") else { return [] }
        guard case .array(let elements) = node else {
            throw root.error("reader", "expected [[reader]] tables, found \(node.typeName)")
        }
        var overrides: [Configuration.ReaderOverride] = []
        for (index, element) in elements.enumerated() {
            guard case .table(let entries) = element else {
                throw root.error("reader", element: index, "expected a table, found \(element.typeName)")
            }
            var reader = TableReader(file: root.file, locator: root.locator, table: ["reader"], index: index, entries: entries)
            guard let match = try reader.string("match"), !match.isEmpty else {
                throw reader.error("match", "expected a non-empty substring of a reader name: every [[reader]] needs one")
            }
            let aids = try aids("aids", of: &reader)
            try reader.rejectUnknownKeys()
            overrides.append(.init(match: match, aids: aids))
        }
        return overrides
    }
}
