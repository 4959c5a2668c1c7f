import Foundation
public import PassTapCore
package import Wallets

/// One feature's table of `passtapd.toml` (`[web]`, `[forward]`, `[metrics]`): its name, its reader
/// and when the loader calls it, the keys the reader takes and the table's rows in a reload. The loader (`ConfigLoader`) reads the core tables itself and then
/// each feature's, in the order of its list of sections (docs/architecture.md, "Feature slices").
package protocol ConfigSection {
    /// The table's name in the file: `web`, `forward`.
    static var table: String { get }
    /// Whether the reader opens files (key, token, secret, password files). The loader reads such
    /// tables only after it has refused every unknown table, so a file's error cannot hide a
    /// misspelt table, and hands them the key file policy.
    static var opensFiles: Bool { get }
    /// The table's rows in a reload (``ConfigSetting``): the restart-only ones and the ones a
    /// reload puts in force, each in the order `config.reloaded` lists it.
    static var settings: [ConfigSetting] { get }
    /// Every key the table's reader accepts, dotted from the file's root (`web.listen`, and
    /// `web.tokens.name` for a key of each `[[web.tokens]]`). `Config/passtapd.toml` and
    /// docs/configuration.md ("Every key") list the same keys, and a test holds all three equal
    /// to what the reader takes.
    static var keys: [String] { get }
    /// Reads `table` into `configuration`, refusing what the schema does not allow. The core
    /// tables and every section before this one are read already.
    static func read(_ table: inout TableReader, into configuration: inout Configuration, context: ConfigSectionContext)
        throws(ConfigurationError)
}

/// What the loader hands every section reader besides its table.
package struct ConfigSectionContext {
    /// The rules a key, token, secret or password file must pass (its owner and mode), for the
    /// socket in the file and, on a reload, the socket the daemon is listening on.
    package let keyPolicy: MerchantKeyFilePolicy

    /// A context with `keyPolicy`.
    package init(keyPolicy: MerchantKeyFilePolicy) {
        self.keyPolicy = keyPolicy
    }
}

extension TableReader {
    /// The table `key` of this one, or `nil` when the file has none; a key of another type is
    /// refused.
    package mutating func subtable(_ key: String) throws(ConfigurationError) -> TableReader? {
        guard let node = node(key) else { return nil }
        guard case .table(let entries) = node else {
            throw error(key, "expected a table [\(key)], found \(node.typeName)")
        }
        return TableReader(file: file, locator: locator, table: [key], entries: entries)
    }
}

extension TableReader {
    /// The entries of the array of tables `key` (`[[feedback.patterns]]`), each as a reader of its
    /// own (`feedback.patterns[1].led`); none when the file has none. Refused: `key` not an array
    /// of tables, or more than `maximum` entries (`what` names them in the error).
    package mutating func arrayOfTables(_ key: String, maximum: Int, what: String) throws(ConfigurationError) -> [TableReader] {
        guard let node = node(key) else { return [] }
        let name = (table + [key]).joined(separator: ".")
        guard case .array(let elements) = node else {
            throw error(key, "expected [[\(name)]] tables, found \(node.typeName)")
        }
        guard elements.count <= maximum else {
            throw error(key, "expected at most \(maximum) \(what), found \(elements.count)")
        }
        var readers: [TableReader] = []
        for (index, element) in elements.enumerated() {
            guard case .table(let entries) = element else {
                throw error(key, element: index, "expected a table, found \(element.typeName)")
            }
            readers.append(TableReader(file: file, locator: locator, table: table + [key], index: index, entries: entries))
        }
        return readers
    }
}

/// Paths and hosts as the section readers take them.
package enum ConfigPaths {
    /// Key and token file paths are taken as written when absolute, else relative to the config
    /// file's folder.
    package static func resolve(_ path: String, relativeTo file: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let folder = (file as NSString).deletingLastPathComponent
        return folder.isEmpty ? path : (folder as NSString).appendingPathComponent(path)
    }

    /// `localhost`, `::1` or an IPv4 address in 127.0.0.0/8.
    package static func isLoopbackHost(_ host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
