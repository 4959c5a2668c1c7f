/// Reads one TOML table against the schema: typed getters that record which keys were used, and a
/// final check that refuses every key the schema does not know.
package struct TableReader {
    package let file: String
    package let locator: SourceLocator
    /// `["socket"]`, or `["reader"]` with ``index`` for an entry of `[[reader]]`.
    package let table: [String]
    package let index: Int?
    private let entries: [String: ConfigNode]
    private var used: Set<String> = []

    package init(file: String, locator: SourceLocator, table: [String], index: Int? = nil, entries: [(key: String, value: ConfigNode)]) {
        self.file = file
        self.locator = locator
        self.table = table
        self.index = index
        self.entries = Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The dotted path of a key in this table, e.g. `reader[1].aids[0]`.
    package func keyPath(_ key: String?, element: Int? = nil) -> String {
        var path = table.joined(separator: ".")
        if let index { path += "[\(index)]" }
        if let key { path += path.isEmpty ? key : ".\(key)" }
        if let element { path += "[\(element)]" }
        return path
    }

    /// An error about `key` (or the table itself), with its line when it can be found.
    package func error(_ key: String?, element: Int? = nil, _ problem: String) -> ConfigurationError {
        ConfigurationError(
            file: file,
            line: locator.line(table: table, index: index, key: key)
                ?? key.flatMap { locator.line(table: table + [$0], key: nil) }
                ?? locator.line(table: table, index: index, key: nil),
            keyPath: keyPath(key, element: element),
            problem: problem)
    }

    package mutating func node(_ key: String) -> ConfigNode? {
        used.insert(key)
        return entries[key]
    }

    package mutating func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let node = node(key) else { return nil }
        guard case .string(let value) = node else { throw error(key, "expected a string, found \(node.typeName)") }
        return value
    }

    package mutating func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let node = node(key) else { return nil }
        guard case .boolean(let value) = node else { throw error(key, "expected true or false, found \(node.typeName)") }
        return value
    }

    package mutating func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let node = node(key) else { return nil }
        guard case .integer(let value) = node else { throw error(key, "expected an integer, found \(node.typeName)") }
        guard range.contains(value) else {
            throw error(key, "expected an integer from \(range.lowerBound) to \(range.upperBound), found \(value)")
        }
        return value
    }

    package mutating func strings(_ key: String) throws(ConfigurationError) -> [String]? {
        guard let node = node(key) else { return nil }
        guard case .array(let elements) = node else { throw error(key, "expected an array of strings, found \(node.typeName)") }
        var values: [String] = []
        for (offset, element) in elements.enumerated() {
            guard case .string(let value) = element else {
                throw error(key, element: offset, "expected a string, found \(element.typeName)")
            }
            values.append(value)
        }
        return values
    }

    /// Refuses keys the schema does not know, naming the ones it does; `context` (such as
    /// `"merchant pass.com.example: "`) starts the message.
    package func rejectUnknownKeys(context: String = "") throws(ConfigurationError) {
        let unknown = entries.keys.filter { !used.contains($0) }.sorted()
        guard let first = unknown.first else { return }
        let known = used.sorted().joined(separator: ", ")
        throw error(first, "\(context)unknown key; \(keyPath(nil).isEmpty ? "top-level" : "[\(keyPath(nil))]") takes: \(known)")
    }

    /// Marks keys as known without reading them yet, so ``rejectUnknownKeys(context:)`` can run
    /// before slow or failing reads of those keys.
    package mutating func declare(_ keys: String...) {
        used.formUnion(keys)
    }
}
