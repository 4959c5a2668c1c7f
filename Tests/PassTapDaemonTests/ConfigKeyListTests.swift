import Foundation
import PassTapDaemon
import Testing

/// One key list: the keys the section readers declare (`ConfigLoader.keys`) are the keys they
/// take, and the ones `Config/passtapd.toml`, `man/passtapd.toml.5` and docs/configuration.md
/// ("Every key") list, so a key added in one place only fails here (docs/architecture.md, "Feature slices").
@Suite(.timeLimit(.minutes(1))) struct ConfigKeyListTests {
    /// The repository's root.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Keys `Config/passtapd.toml` sets or shows commented out, dotted from the root, and the
    /// tables it writes as arrays (`[[reader]]`).
    static func exampleFile() throws -> (keys: Set<String>, arrays: Set<String>) {
        let text = try String(contentsOf: root.appendingPathComponent("Config/passtapd.toml"), encoding: .utf8)
        var table = ""
        var keys: Set<String> = []
        var arrays: Set<String> = []
        for line in text.split(separator: "\n") {
            let code = line.hasPrefix("#") ? line.dropFirst().drop { $0 == " " } : line[...]
            if let header = code.firstMatch(of: #/^(\[\[?)([a-z_.]+)\]/#) {
                table = String(header.2)
                if header.1 == "[[" { arrays.insert(table) }
            } else if let key = code.firstMatch(of: #/^([a-z_]+) *= /#) {
                keys.insert("\(table).\(key.1)")
            }
        }
        return (keys, arrays)
    }

    /// The rows of docs/configuration.md's "Every key" table: key, then "reload" or "restart".
    static func documentedKeys() throws -> [String: String] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "\n## Every key\n").dropFirst().first)
        var rows: [String: String] = [:]
        for line in section.components(separatedBy: "\n## ")[0].split(separator: "\n") {
            if let row = line.firstMatch(of: #/^\| `([a-z_.]+)` \|.*\| (reload|restart) \|$/#) {
                rows[String(row.1)] = String(row.2)
            }
        }
        return rows
    }

    /// Expects `listed` (the keys `place` lists) to be exactly the declared keys.
    static func expectTheDeclaredKeys(
        _ listed: Set<String>, in place: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let missing = Set(ConfigLoader.keys).subtracting(listed).sorted()
        let unknown = listed.subtracting(ConfigLoader.keys).sorted()
        #expect(missing.isEmpty, "missing from \(place): \(missing)", sourceLocation: sourceLocation)
        #expect(unknown.isEmpty, "in \(place) but taken by no section: \(unknown)", sourceLocation: sourceLocation)
    }

    /// Each declared key is taken by its table's reader, and the reader takes no other: the
    /// loader's refusal of an unknown key names every key the reader asked for.
    @Test func theReadersTakeExactlyTheDeclaredKeys() throws {
        let arrays = try Self.exampleFile().arrays
        let declared = ConfigLoader.keys
        let tables = Set(declared.map { String($0[..<$0.lastIndex(of: ".")!]) })
        for table in tables.sorted() {
            let leaves = declared.filter { $0.hasPrefix(table + ".") }.map { String($0.dropFirst(table.count + 1)) }
            let expected = Set(leaves.map { String($0.prefix { $0 != "." }) })
            let header = arrays.contains(table) ? "[[\(table)]]" : "[\(table)]"
            // Every [[reader]] needs its match before the reader gets to unknown keys.
            let needed = table == "reader" ? "match = \"x\"\n" : ""
            var taken: Set<String> = []
            do {
                _ = try ConfigLoader.parse("\(header)\n\(needed)zz_unknown = 1\n", file: "t.toml")
            } catch {
                let list = error.problem.components(separatedBy: "takes: ").dropFirst().first ?? ""
                taken = Set(list.components(separatedBy: ", "))
                #expect(error.problem.contains("unknown key"), "\(table): \(error)")
            }
            #expect(taken == expected, "[\(table)]: the reader takes \(taken.sorted()), the section declares \(expected.sorted())")
        }
    }

    /// `Config/passtapd.toml` shows every key, and no other.
    @Test func theExampleFileShowsEveryKey() throws {
        Self.expectTheDeclaredKeys(try Self.exampleFile().keys, in: "Config/passtapd.toml")
    }

    /// `man/passtapd.toml.5`'s "SECTIONS AND KEYS" describes every key, and no other.
    @Test func theManualPageDescribesEveryKey() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("man/passtapd.toml.5"), encoding: .utf8)
        let lines = try #require(text.components(separatedBy: "\n.SH SECTIONS AND KEYS\n").dropFirst().first)
            .components(separatedBy: "\n")
        var table = ""
        var described: Set<String> = []
        for (index, line) in lines.enumerated() {
            if let header = line.firstMatch(of: #/^\.SS \[\[?([a-z_.]+)\]/#) {
                table = String(header.1)
            } else if line == ".TP", index + 1 < lines.count, let key = lines[index + 1].firstMatch(of: #/^\.BR? ([a-z_]+)/#) {
                described.insert("\(table).\(key.1)")
            }
        }
        Self.expectTheDeclaredKeys(described, in: "man/passtapd.toml.5")
    }

    /// docs/configuration.md's "Every key" lists every key, and no other, each with whether a
    /// reload puts it in force: "restart" exactly when it falls under a restart-only reload row.
    @Test func theDocsListEveryKeyAndWhenItTakesEffect() throws {
        let documented = try Self.documentedKeys()
        Self.expectTheDeclaredKeys(Set(documented.keys), in: "docs/configuration.md")
        for key in ConfigLoader.keys {
            let rows = ConfigLoader.settings.filter { key == $0.key || key.hasPrefix($0.key + ".") }
            #expect(rows.count == 1, "\(key) falls under the reload rows \(rows.map(\.key))")
            guard let row = rows.first, let when = documented[key] else { continue }
            #expect(when == (row.requiresRestart ? "restart" : "reload"), "\(key): the docs say \(when)")
        }
    }
}
